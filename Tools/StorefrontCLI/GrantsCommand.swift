import Foundation
import BillingModel
import HTTPClient
import ServiceSettings

/// `storefront grant USER ENTITLEMENT --for 30d` and `storefront revoke USER
/// GRANT_ID`: promotional entitlements from support (docs/grants.md).
///
/// Both call the server API (`STOREFRONT_API_URL`, `STOREFRONT_API_KEY` with
/// `entitlements:write`) rather than the database or the broker, so the
/// checks, the scope and the audit are the API's own: one way to grant.
public enum GrantsCommand {
    public static func run(
        _ arguments: CommandLineArguments, environment: Environment, client: HTTPClient = HTTPClient(), output: @Sendable (String) -> Void
    ) async throws {
        var reader = ConfigReader(environment, declared: StorefrontCLIBinary.grants)
        let base = reader.string(.serverAPIURL, default: "http://127.0.0.1:8080")
        let key = reader.required.secret(.serverAPIKey).reveal()
        try reader.finish()
        let request = try request(arguments, base: base, key: key)
        let response = try await client.execute(request)
        guard response.isSuccess else { throw Refused(status: response.status, body: response.bodyString) }
        output(describe(try response.decode(EntitlementGrant.self)))
    }

    /// The API's refusal, as it said it (`code` and message).
    public struct Refused: Error, CustomStringConvertible {
        public let status: Int
        public let body: String
        public var description: String { "the server answered \(status): \(body.prefix(500))" }
    }

    /// The HTTP request for `grant` or `revoke`.
    static func request(_ arguments: CommandLineArguments, base: String, key: String) throws -> HTTPClientRequest {
        var headers: HTTPHeaders = ["X-API-Key": key, "Content-Type": "application/json"]
        switch arguments.words.first {
        case "grant":
            guard arguments.words.count == 3 else { throw usage("grant takes USER ENTITLEMENT") }
            var body: [String: String] = ["entitlement": arguments.words[2]]
            switch (arguments.options["for"], arguments.options["until"]) {
            case (let length?, nil): body["duration"] = try duration(length)
            case (nil, let end?): body["expires_at"] = end
            default: throw usage("grant takes --for LENGTH (30d, 12h, 2w, 3mo, 1y or ISO 8601 such as P30D) or --until TIME, one of them")
            }
            if let reason = arguments.options["reason"] { body["reason"] = reason }
            if let idempotency = arguments.options["idempotency-key"] { headers.add(name: "Idempotency-Key", value: idempotency) }
            return HTTPClientRequest(
                method: .post, url: ServerAPIURL.user(arguments.words[1], "grants", base: base), headers: headers,
                body: Array(try JSONEncoder().encode(body)))
        case "revoke":
            guard arguments.words.count == 3 else { throw usage("revoke takes USER GRANT_ID") }
            return HTTPClientRequest(
                method: .delete, url: ServerAPIURL.user(arguments.words[1], "grants", arguments.words[2], base: base),
                headers: headers)
        default:
            throw usage("grants are given with grant and taken back with revoke")
        }
    }

    /// `30d` → `P30D`, `12h` → `PT12H`, `2w` → `P2W`, `3mo` → `P3M`, `1y` → `P1Y`; ISO 8601 passes as written.
    static func duration(_ text: String) throws(CommandLineArguments.UsageError) -> String {
        if text.hasPrefix("P") { return text }
        let units: [(String, (Int) -> String)] = [
            ("mo", { "P\($0)M" }), ("d", { "P\($0)D" }), ("w", { "P\($0)W" }), ("h", { "PT\($0)H" }), ("y", { "P\($0)Y" }),
        ]
        for (suffix, make) in units where text.hasSuffix(suffix) {
            if let count = Int(text.dropLast(suffix.count)), count > 0 { return make(count) }
        }
        throw usage("--for \(text): give a length such as 30d, 12h, 2w, 3mo, 1y, or ISO 8601 such as P30D")
    }

    static func describe(_ grant: EntitlementGrant) -> String {
        let until = Timestamp.format(grant.revokedAt.map { min($0, grant.expiresAt) } ?? grant.expiresAt)
        let what = grant.revokedAt == nil ? "grants" : "revoked, granted"
        let pending = grant.state == .pending ? " (pending: the projector applies it shortly)" : ""
        return "\(grant.grantID) \(what) \(grant.entitlement) to \(grant.appUserID) from \(Timestamp.format(grant.startsAt)) until \(until)\(pending)"
    }

    static func usage(_ message: String) -> CommandLineArguments.UsageError { CommandLineArguments.UsageError(description: message) }
}
