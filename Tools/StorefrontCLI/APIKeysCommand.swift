import ServiceSettings
import CheckoutService
import Foundation
import BillingModel
import Postgres

/// `storefront api-keys create --name N --scope entitlements:read [--expires-in 90d]`,
/// `storefront api-keys list`, `storefront api-keys revoke KEY_ID`: the API
/// keys of the app's own servers (`STOREFRONT_ADMIN_DATABASE_URL`, a user
/// granted ``AdminDatabase/role``: the checkout's role may only read keys).
///
/// `create` prints the key once, on its own first line; only its SHA-256 is
/// stored, so a lost key is revoked and replaced, never recovered. The key's
/// prefix (`sfk_test_` or `sfk_live_`) follows `STOREFRONT_MODE` (`test`
/// unless `live`, as the other commands read it); the checkout refuses a key
/// whose mode is not its own. `--expires-in` (`90d`, `12h`) makes a key that
/// is refused from then on, as a revoked one is.
public enum APIKeysCommand {
    /// The CLI help's lines.
    public static let usage = """
        api-keys create --name NAME --scope entitlements:read|entitlements:write|subscriptions:manage|purchases:refund[,…] [--expires-in 90d]
        api-keys list | api-keys revoke KEY_ID
        """

    public static func run(
        _ arguments: CommandLineArguments, environment: Environment, now: Date = Date(), output: @Sendable (String) -> Void
    ) async throws {
        var reader = ConfigReader(environment, declared: StorefrontCLIBinary.apiKeys)
        let url = AdminDatabase.url(&reader)
        let mode: DeploymentMode = reader.string(.apiKeysMode) == "live" ? .live : .test
        let limits = PostgresSessionLimits.fromEnvironment(&reader, defaults: .maintenance)
        try reader.finish()

        var database = try PostgresConfiguration(url: url)
        database.limits = limits
        let pool = PostgresPool(configuration: database)
        do {
            try await perform(arguments, store: PostgresAPIKeyStore(pool: pool), mode: mode, now: now, output: output)
        } catch {
            await pool.close()
            throw error
        }
        await pool.close()
    }

    /// The command itself, against any store (unit tests pass a fake).
    public static func perform(
        _ arguments: CommandLineArguments, store: any APIKeyStore, mode: DeploymentMode, now: Date, output: @Sendable (String) -> Void
    ) async throws {
        let words = Array(arguments.words.dropFirst())
        switch words.first {
        case "create":
            let name = try arguments.require("name").trimmingCharacters(in: .whitespaces)
            guard (1...200).contains(name.count) else { throw usageError("--name must be 1 to 200 characters") }
            let scopes = try parseScopes(arguments.require("scope"))
            let expiresAt = try arguments.options["expires-in"].map { now.addingTimeInterval(try parseLifetime($0)) }
            let key = try APIKey.generate(mode: mode)
            try await store.insert(
                APIKeyRecord(keyID: key.keyID, name: name, scopes: scopes, hash: key.hash, createdAt: now, expiresAt: expiresAt))
            output(key.text)
            output(
                "key id \(key.keyID), name \(name), scopes \(render(scopes)), "
                    + "expires \(expiresAt.map(Timestamp.format) ?? "never")")
            output("Store the key now: it is shown only once (Storefront keeps only its SHA-256).")
        case "list":
            let keys = try await store.list()
            if keys.isEmpty { output("no API keys") }
            for key in keys { output(line(key)) }
        case "revoke":
            guard words.count == 2 else { throw usageError("usage: storefront api-keys revoke KEY_ID") }
            guard try await store.revoke(keyID: words[1], at: now) else {
                throw usageError("no unrevoked API key has the id \(words[1]) (see storefront api-keys list)")
            }
            output("revoked \(words[1])")
        default:
            throw usageError("usage:\n  storefront " + usage.replacingOccurrences(of: "\n", with: "\n  storefront "))
        }
    }

    /// `--scope a,b`: every scope must be known, so a typo never makes a key that can do nothing.
    static func parseScopes(_ text: String) throws(CommandLineArguments.UsageError) -> Set<APIKeyScope> {
        var scopes = Set<APIKeyScope>()
        for raw in text.split(separator: ",") {
            guard let scope = APIKeyScope(rawValue: raw.trimmingCharacters(in: .whitespaces)) else {
                throw usageError("unknown scope \(raw); known: \(APIKeyScope.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            scopes.insert(scope)
        }
        guard !scopes.isEmpty else { throw usageError("--scope names no scope") }
        return scopes
    }

    /// `--expires-in`: whole days (`90d`) or hours (`12h`), from one hour to ten years.
    static func parseLifetime(_ text: String) throws(CommandLineArguments.UsageError) -> TimeInterval {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let unit: TimeInterval? = trimmed.hasSuffix("d") ? 86_400 : trimmed.hasSuffix("h") ? 3_600 : nil
        guard let unit, let count = Int(trimmed.dropLast()), count > 0 else {
            throw usageError("--expires-in takes whole days or hours, e.g. 90d or 12h; got \(text)")
        }
        let seconds = TimeInterval(count) * unit
        guard seconds <= 3650 * 86_400 else { throw usageError("--expires-in is at most 3650d") }
        return seconds
    }

    /// One key in `list`: id, name, scopes, created, last used, expiry, revoked.
    static func line(_ key: APIKeyRecord) -> String {
        "\(key.keyID)  \(key.name)  scopes=\(render(key.scopes))  created=\(Timestamp.format(key.createdAt))"
            + "  last_used=\(key.lastUsedAt.map(Timestamp.format) ?? "never")  expires=\(key.expiresAt.map(Timestamp.format) ?? "never")"
            + "  revoked=\(key.revokedAt.map(Timestamp.format) ?? "no")"
    }

    private static func render(_ scopes: Set<APIKeyScope>) -> String {
        scopes.map(\.rawValue).sorted().joined(separator: ",")
    }

    private static func usageError(_ message: String) -> CommandLineArguments.UsageError {
        CommandLineArguments.UsageError(description: message)
    }
}
