import ServiceSettings
import CryptoPrimitives
import Foundation
import Postgres
import ServiceRuntime
import WebhookSenderService

/// `storefront endpoints add|list|enable|disable|remove|rotate-secret|replay`:
/// the receivers of webhooks out, in PostgreSQL (`STOREFRONT_ADMIN_DATABASE_URL`,
/// a user granted ``AdminDatabase/role``).
///
/// - `add --url URL [--types entitlement.granted,purchase.redemption_issued,…] [--secret whsec_…]`:
///   registers an endpoint (every type, present and future, when `--types`
///   is left out; ``WebhookEndpoint/knownEventTypes`` lists the names) and
///   prints its id and secret (generated unless given; shown only here).
/// - `list`: every endpoint with its queue (pending, delivered, dead).
/// - `enable ID`, `disable ID`: a disabled endpoint gets no new events and
///   nothing is sent to it; its queue waits.
/// - `remove ID`: the endpoint and its queue.
/// - `rotate-secret ID`: a new secret, printed; the old one keeps signing
///   beside it for 24 hours (``EndpointStore/rotationOverlap``).
/// - `replay ID [--event EVENT_ID]`: puts dead-lettered deliveries back in
///   the queue with a fresh retry schedule.
public enum EndpointsCommand {
    public static let usage =
        "usage: storefront endpoints add --url URL [--types T,…] [--secret whsec_…] | list | enable ID | disable ID | remove ID | rotate-secret ID | replay ID [--event EVENT_ID]"

    public static func run(_ arguments: CommandLineArguments, environment: Environment, output: @Sendable (String) -> Void) async throws {
        var reader = ConfigReader(environment, declared: StorefrontCLIBinary.endpoints)
        let url = AdminDatabase.url(&reader)
        let limits = PostgresSessionLimits.fromEnvironment(&reader, defaults: .maintenance)
        try reader.finish()
        var database = try PostgresConfiguration(url: url)
        database.limits = limits
        let pool = PostgresPool(configuration: database)
        do {
            try await run(arguments, pool: pool, output: output)
        } catch {
            await pool.close()
            throw error
        }
        await pool.close()
    }

    static func run(_ arguments: CommandLineArguments, pool: PostgresPool, output: @Sendable (String) -> Void) async throws {
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
            let endpoint = try newEndpoint(arguments)
            try await endpoints.add(endpoint)
            output("added \(endpoint.id) \(endpoint.url)")
            output("secret \(endpoint.secret)")
        case "list":
            let counts = try await deliveries.counts()
            for endpoint in try await endpoints.all() {
                let c = counts[endpoint.id] ?? (0, 0, 0)
                let types = endpoint.eventTypes.isEmpty ? "all types" : endpoint.eventTypes.sorted().joined(separator: ",")
                output(
                    "\(endpoint.id) \(endpoint.enabled ? "enabled" : "disabled") \(endpoint.url) [\(types)] "
                        + "pending \(c.pending) delivered \(c.delivered) dead \(c.dead)")
            }
        case "enable": try found(try await endpoints.setEnabled(try id(), true), "enabled \(try id())")
        case "disable": try found(try await endpoints.setEnabled(try id(), false), "disabled \(try id())")
        case "remove": try found(try await endpoints.remove(try id()), "removed \(try id())")
        case "rotate-secret":
            let secret = try StandardWebhookSignature.generateSecret()
            try found(try await endpoints.rotateSecret(try id(), to: secret), "secret \(secret)")
        case "replay":
            let count = try await deliveries.replay(endpointID: try id(), eventID: arguments.options["event"])
            output("replayed \(count) dead deliver\(count == 1 ? "y" : "ies")")
        default:
            throw CommandLineArguments.UsageError(description: usage)
        }
    }

    /// The endpoint `add` describes, checked: an absolute http(s) URL, known types, a valid secret.
    static func newEndpoint(_ arguments: CommandLineArguments) throws -> WebhookEndpoint {
        let url = try arguments.require("url")
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), ["https", "http"].contains(scheme), parsed.host != nil else {
            throw CommandLineArguments.UsageError(description: "--url must be an absolute https:// (or http://) URL")
        }
        var types = Set<String>()
        let known = WebhookEndpoint.knownEventTypes
        for name in (arguments.options["types"] ?? "").split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
            guard known.contains(name) else {
                throw CommandLineArguments.UsageError(description: "unknown type \(name); the types are \(known.joined(separator: ", "))")
            }
            types.insert(name)
        }
        let secret = try arguments.options["secret"] ?? StandardWebhookSignature.generateSecret()
        _ = try StandardWebhookSignature.key(of: secret)
        return WebhookEndpoint(id: "ep_" + UUID().uuidString.lowercased(), url: url, secret: secret, eventTypes: types)
    }
}
