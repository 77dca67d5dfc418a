import Timing
import ServiceSettings
import Foundation
import HTTPClient
import Kafka
import BillingModel
import Postgres
import ProviderConfiguration
import Providers
import ReconcilerService
import ServiceRuntime
import Synchronization
import Telemetry

/// `storefront reconcile [--provider P] [--since DATE]`: one sweep now, as the
/// reconciler's scheduled one does it. Pages through every list of the
/// enabled providers (or of `--provider`), publishes a snapshot of each object
/// changed since `--since` (ISO 8601 or `YYYY-MM-DD`; without it: every
/// object) to `storefront.snapshots.v1`, and prints what it found and what
/// it changed. With `DATABASE_URL` it also compares each listed
/// subscription's status with its row in the projection (read only) and
/// prints every difference ("drift"), which the published snapshots correct.
/// Progress lines appear at most once a second on long runs.
///
/// Reads the providers' settings as the services do, `KAFKA_BROKERS`, and the
/// reconciler's budgets (`RECONCILER_LEMONSQUEEZY_REQUESTS_PER_MINUTE`,
/// `RECONCILER_PAYSTACK_REQUESTS_PER_MINUTE`). Exits non-zero when a list
/// could not be read to the end.
public enum ReconcileCommand {
    public static let usage = "reconcile [--provider lemonsqueezy|paystack] [--since DATE]"

    /// Most drift lines printed per list.
    static let maximumDriftLines = 50

    public struct Incomplete: Error, CustomStringConvertible {
        public let description: String
    }

    public static func run(
        _ arguments: CommandLineArguments, environment: Environment, logger: Logger,
        output: @escaping @Sendable (String) -> Void
    ) async throws {
        var reader = ConfigReader(environment)
        let settings = ReconcilerProviderSettings.fromEnvironment(&reader)
        let messaging = MessagingSettings.fromEnvironment(&reader, service: "storefront-cli", logger: logger)
        let databaseURL = reader.string("DATABASE_URL")
        try reader.finish()
        guard let settings else { throw CommandLineArguments.UsageError(description: "no payment provider is configured") }

        let since = try arguments.options["since"].map(parseDate)
        var providers = settings.providers.enabledProviders
        if let name = arguments.options["provider"] {
            guard let provider = Provider(rawValue: name) else {
                throw CommandLineArguments.UsageError(description: "--provider must be lemonsqueezy or paystack")
            }
            guard providers.contains(provider) else {
                throw CommandLineArguments.UsageError(description: "\(name) is not configured (see its *_API_KEY / *_SECRET_KEY settings)")
            }
            providers = [provider]
        }

        let metrics = ReconcilerMetrics(registry: MetricsRegistry())
        let source = settings.makeSource(httpClient: HTTPClient(), metrics: metrics)
        try await messaging.ensureTopics(Topics.all)
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: messaging.client))
        let pool = try databaseURL.map {
            PostgresPool(configuration: try PostgresConfiguration(url: $0), options: PostgresPoolConfiguration(maximumConnections: 2))
        }
        let sweeper = Sweeper(
            source: source, publisher: KafkaSnapshotPublisher(producer: producer),
            statuses: pool.map(PostgresProjectionStatusReader.init(pool:)), logger: logger)
        let sweepID = String(UUID().uuidString.lowercased().prefix(8))
        output(
            "reconcile cli:\(sweepID): \(providers.map(\.rawValue).joined(separator: ", ")), "
                + (since.map { "objects changed since \(Timestamp.format($0))" } ?? "every object")
                + (pool == nil ? " (DATABASE_URL unset: drift not checked)" : ""))

        let clock = ContinuousClock()
        let start = clock.now
        let printer = ProgressPrinter(output: output)
        // The providers in parallel: each has its own budget.
        let reports = await withTaskGroup(of: [SweepListReport].self) { group in
            for provider in providers {
                output("\(provider.rawValue): paging at most \(settings.requestsPerMinute(provider)) requests a minute")
                group.addTask {
                    let found = await sweeper.sweep(provider, since: since, trigger: .cli, sweepID: sweepID, progress: printer.print)
                    for report in found { describe(report, output: output) }
                    return found
                }
            }
            var all: [SweepListReport] = []
            for await found in group { all += found }
            return all.sorted { ($0.provider.rawValue, $0.list.rawValue) < ($1.provider.rawValue, $1.list.rawValue) }
        }
        let undelivered = await producer.shutdown()
        await pool?.close()

        let requests = providers.reduce(0) { $0 + metrics.requests($1).current }
        let limited = providers.reduce(0) { $0 + metrics.rateLimited($1).current }
        output(
            String(
                format: "done in %.1f s: %d provider requests (%d answered 429), %d objects listed, %d snapshots published, %d drift",
                (clock.now - start).inSeconds, requests, limited,
                reports.reduce(0) { $0 + $1.listed }, reports.reduce(0) { $0 + $1.published }, reports.reduce(0) { $0 + $1.drift.count }))
        let failures = reports.compactMap { report in report.failure.map { "\(report.provider.rawValue) \(report.list.rawValue): \($0)" } }
        if !undelivered.isEmpty { output("warning: \(undelivered.count) snapshots were not delivered at shutdown") }
        if !failures.isEmpty { throw Incomplete(description: "sweep incomplete: " + failures.joined(separator: "; ")) }
    }

    static func describe(_ report: SweepListReport, output: @Sendable (String) -> Void) {
        var line =
            "\(report.provider.rawValue) \(report.list.rawValue): \(report.listed) listed on \(report.pages) page(s), "
            + "\(report.changed) changed, \(report.published) snapshot(s) published"
        if report.list == .subscriptions { line += report.driftChecked ? ", \(report.drift.count) drift" : ", drift not checked" }
        line += String(format: " (%.1f s)", report.seconds)
        if let failure = report.failure { line += "; INCOMPLETE: \(failure)" }
        output(line)
        for drift in report.drift.prefix(maximumDriftLines) { output("  drift \(drift)") }
        if report.drift.count > maximumDriftLines { output("  … and \(report.drift.count - maximumDriftLines) more") }
    }

    /// ISO 8601 (`2026-01-31T12:00:00Z`) or a day (`2026-01-31`, midnight UTC).
    static func parseDate(_ text: String) throws -> Date {
        if let date = Timestamp.parse(text) ?? Timestamp.parse(text + "T00:00:00Z") { return date }
        throw CommandLineArguments.UsageError(description: "--since must be an ISO 8601 time or a date (YYYY-MM-DD)")
    }
}

/// Prints a sweep's progress at most once a second.
final class ProgressPrinter: Sendable {
    private let last = Mutex<ContinuousClock.Instant?>(nil)
    private let output: @Sendable (String) -> Void

    init(output: @escaping @Sendable (String) -> Void) {
        self.output = output
    }

    var print: @Sendable (SweepProgress) -> Void {
        { [self] progress in
            let now = ContinuousClock.now
            let due = last.withLock { last -> Bool in
                guard last.map({ now - $0 >= .seconds(1) }) ?? true else { return false }
                last = now
                return true
            }
            guard due else { return }
            let pages = progress.pageCount.map { "\(progress.page)/\($0)" } ?? "\(progress.page)"
            output(
                "  … \(progress.provider.rawValue) \(progress.list.rawValue): page \(pages), \(progress.listed) listed, "
                    + "\(progress.published) published, \(progress.drift) drift")
        }
    }
}
