import ServiceSettings
import BillingModel
import CryptoPrimitives
import Foundation
import Postgres
import ServiceRuntime
import WebhookSenderService

/// `storefront endpoints add|list|enable|disable|remove|rotate-secret|replay`:
/// the receivers of webhooks out, in PostgreSQL (`STOREFRONT_ADMIN_DATABASE_URL`,
/// a user granted ``AdminDatabase/role``).
///
/// - `add --url URL [--types entitlement.granted,purchase.redemption_issued,…] [--secret-stdin] [--allow-private]`:
///   registers an endpoint (every type, present and future, when `--types`
///   is left out; ``WebhookEndpoint/knownEventTypes`` lists the names) and
///   prints its id and secret (generated unless `--secret-stdin` reads one
///   from standard input; shown only here). The URL must pass
///   ``EndpointURLPolicy`` (`https://` only with `STOREFRONT_MODE=live`; no
///   private, loopback, link-local or unspecified target without `--allow-private`).
/// - `list`: every endpoint with its state (enabled, failing since, disabled
///   by whom) and its queue (pending, delivered, dead).
/// - `enable ID`, `disable ID`: a disabled endpoint gets no new events and
///   nothing is sent to it; its queue waits. `enable` also resets the circuit breaker.
/// - `remove ID`: the endpoint and its queue.
/// - `rotate-secret ID`: a new secret, printed; the old one keeps signing
///   beside it for 24 hours (``EndpointStore/rotationOverlap``).
/// - `replay ID [--event EVENT_ID]`, `replay --endpoint ID --since T [--until T] [--include-delivered]`:
///   puts dead-lettered (and, with `--include-delivered`, delivered)
///   deliveries back in the queue with a fresh retry schedule (``EndpointsReplay``).
public enum EndpointsCommand {
    public static let usage =
        "usage: storefront endpoints add --url URL [--types T,…] [--secret-stdin] [--allow-private] | list | enable ID | disable ID | remove ID"
        + " | rotate-secret ID | replay ID [--event EVENT_ID] | replay --endpoint ID --since T [--until T] [--include-delivered]"

    /// - Parameter input: standard input's next line (`--secret-stdin`).
    public static func run(
        _ arguments: CommandLineArguments, environment: Environment, input: @escaping @Sendable () -> String? = { readLine() },
        output: @Sendable (String) -> Void
    ) async throws {
        var reader = ConfigReader(environment, declared: StorefrontCLIBinary.endpoints)
        let url = AdminDatabase.url(&reader)
        let liveMode = reader.string(.endpointsMode) == "live"
        let limits = PostgresSessionLimits.fromEnvironment(&reader, defaults: .maintenance)
        try reader.finish()
        var database = try PostgresConfiguration(url: url)
        database.limits = limits
        let pool = PostgresPool(configuration: database)
        do {
            try await run(arguments, pool: pool, liveMode: liveMode, input: input, output: output)
        } catch {
            await pool.close()
            throw error
        }
        await pool.close()
    }

    static func run(
        _ arguments: CommandLineArguments, pool: PostgresPool, liveMode: Bool = false, input: @Sendable () -> String? = { nil },
        resolver: any HostResolver = SystemHostResolver(), output: @Sendable (String) -> Void
    ) async throws {
        let endpoints = EndpointStore(pool: pool), deliveries = DeliveryStore(pool: pool)
        let words = Array(arguments.words.dropFirst())
        func id() throws(CommandLineArguments.UsageError) -> String {
            guard words.count >= 2, !words[1].isEmpty else { throw CommandLineArguments.UsageError(description: usage) }
            return words[1]
        }
        func found(_ done: Bool, _ message: String) throws {
            guard done else { throw CommandLineArguments.UsageError(description: "no endpoint \(words.count >= 2 ? words[1] : "")") }
            output(message)
        }
        switch words.first {
        case "add":
            let (endpoint, notes) = try await EndpointsAdd.newEndpoint(arguments, liveMode: liveMode, input: input, resolver: resolver)
            try await endpoints.add(endpoint)
            output("added \(endpoint.id) \(endpoint.url)")
            notes.forEach(output)
            output("secret \(endpoint.secret)")
        case "list":
            let counts = try await deliveries.counts()
            for endpoint in try await endpoints.all() {
                let c = counts[endpoint.id] ?? (0, 0, 0)
                let types = endpoint.eventTypes.isEmpty ? "all types" : endpoint.eventTypes.sorted().joined(separator: ",")
                output(
                    "\(endpoint.id) \(state(of: endpoint)) \(endpoint.url) [\(types)] "
                        + "pending \(c.pending) delivered \(c.delivered) dead \(c.dead)")
            }
        case "enable": try found(try await endpoints.setEnabled(try id(), true), "enabled \(try id())")
        case "disable": try found(try await endpoints.setEnabled(try id(), false), "disabled \(try id())")
        case "remove": try found(try await endpoints.remove(try id()), "removed \(try id())")
        case "rotate-secret":
            let secret = try StandardWebhookSignature.generateSecret()
            try found(try await endpoints.rotateSecret(try id(), to: secret), "secret \(secret)")
        case "replay":
            try await EndpointsReplay.run(arguments, words: words, endpoints: endpoints, deliveries: deliveries, output: output)
        default:
            throw CommandLineArguments.UsageError(description: usage)
        }
    }

    /// `enabled`, `enabled (failing since T)`, `disabled` or
    /// `disabled (failing since T, by the circuit breaker at T)`: one word first, for scripts.
    static func state(of endpoint: WebhookEndpoint) -> String {
        let since = endpoint.failingSince.map { "failing since \(Timestamp.format($0))" }
        switch (endpoint.enabled, endpoint.disabledReason) {
        case (true, _): return since.map { "enabled (\($0))" } ?? "enabled"
        case (false, .failing?):
            let at = endpoint.disabledAt.map { " at \(Timestamp.format($0))" } ?? ""
            return "disabled (\(since ?? "failing"), by the circuit breaker\(at))"
        case (false, _): return "disabled"
        }
    }
}
