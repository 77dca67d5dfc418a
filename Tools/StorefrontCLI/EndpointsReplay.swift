import BillingModel
import Foundation
import WebhookSenderService

/// `storefront endpoints replay`: finished deliveries of one endpoint back in its queue.
///
/// - `replay ID [--event EVENT_ID]`: every dead delivery (or one event's).
/// - `replay --endpoint ID --since T [--until T] [--include-delivered]`: the
///   dead deliveries queued in `[since, until)` (until: now), and the
///   delivered ones too with `--include-delivered` (a receiver that lost
///   what it got). Times are ISO 8601 or a day (midnight UTC).
///
/// Idempotent: rows already pending are left alone, so a second run while
/// the first run's rows wait queues nothing, and each event keeps its
/// `webhook-id` for the receiver to dedupe a resend. Progress goes out per
/// chunk of 1000 rows.
enum EndpointsReplay {
    static func run(
        _ arguments: CommandLineArguments, words: [String], endpoints: EndpointStore, deliveries: DeliveryStore,
        output: @Sendable (String) -> Void
    ) async throws {
        let selection = try selection(arguments, words: words)
        guard try await endpoints.all().contains(where: { $0.id == selection.endpointID }) else {
            throw CommandLineArguments.UsageError(description: "no endpoint \(selection.endpointID)")
        }
        if selection.since == nil {
            let count = try await deliveries.replay(selection)
            output("replayed \(count) dead deliver\(count == 1 ? "y" : "ies")")
            return
        }
        let total = try await deliveries.replayCount(selection)
        let what = selection.includeDelivered ? "dead or delivered" : "dead"
        output("replaying \(total) \(what) deliver\(total == 1 ? "y" : "ies") of \(selection.endpointID)")
        let count = try await deliveries.replay(selection) { done in output("  \(done)/\(total)") }
        output("replayed \(count) deliver\(count == 1 ? "y" : "ies")")
    }

    /// The rows the arguments name, checked.
    static func selection(_ arguments: CommandLineArguments, words: [String]) throws -> ReplaySelection {
        let positional = words.count >= 2 ? words[1] : nil
        let named = arguments.options["endpoint"]
        if positional != nil && named != nil {
            throw CommandLineArguments.UsageError(description: "replay: name the endpoint once (ID or --endpoint ID)")
        }
        guard let endpoint = positional ?? named, !endpoint.isEmpty, endpoint != "true" else {
            throw CommandLineArguments.UsageError(description: "replay: which endpoint? replay --endpoint ID --since T [--until T]")
        }
        let since = try arguments.options["since"].map { try time($0, "--since") }
        let until = try arguments.options["until"].map { try time($0, "--until") }
        let includeDelivered = try EndpointsAdd.flag(arguments, "include-delivered")
        if since == nil && (until != nil || includeDelivered) {
            throw CommandLineArguments.UsageError(description: "replay: --until and --include-delivered need --since")
        }
        if let since, let until, since >= until {
            throw CommandLineArguments.UsageError(description: "replay: --since must be before --until")
        }
        if let since, since > Date() {
            throw CommandLineArguments.UsageError(description: "replay: --since is in the future")
        }
        if since != nil && arguments.options["event"] != nil {
            throw CommandLineArguments.UsageError(description: "replay: --event and --since do not go together")
        }
        return ReplaySelection(
            endpointID: endpoint, eventID: arguments.options["event"], since: since, until: until, includeDelivered: includeDelivered)
    }

    /// ISO 8601 (`2026-01-31T12:00:00Z`) or a day (`2026-01-31`, midnight UTC).
    static func time(_ text: String, _ option: String) throws -> Date {
        if let date = Timestamp.parse(text) ?? Timestamp.parse(text + "T00:00:00Z") { return date }
        throw CommandLineArguments.UsageError(description: "\(option) must be an ISO 8601 time or a date (YYYY-MM-DD), got \(text)")
    }
}
