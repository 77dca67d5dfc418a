import ServiceSettings
import CheckoutService
import Foundation
import Postgres
import ProjectionStore
import Entitlements
import ServiceRuntime
import StorefrontCLI
import Telemetry
import TestSupport
import Testing

/// `storefront api-keys` against a migrated database.
@Suite struct APIKeysCommandTests {
    let logger = Logger(service: "cli-tests", minimumLevel: .critical)

    @Test func createPrintsTheKeyOnceStoresItsHashListsAndRevokes() async throws {
        try await FreshDatabase.with(prefix: "test_cli_keys") { pool, url in
            _ = try await MigrateCommand.run(environment: Environment(["DATABASE_URL": url]), logger: logger)
            let created = Output()
            try await APIKeysCommand.run(
                try CommandLineArguments(["api-keys", "create", "--name", "billing backend", "--scope", "entitlements:read"]),
                environment: Environment(["DATABASE_URL": url, "STOREFRONT_MODE": "live"])
            ) { created($0) }
            let text = try #require(created.text.split(separator: "\n").first.map(String.init))
            let key = try #require(APIKey(parsing: text), "the first line is the key: \(created.text)")
            #expect(key.mode == .live && text.hasPrefix("sfk_live_"))

            let stored = try #require(try await PostgresAPIKeyStore(pool: pool).find(keyID: key.keyID))
            #expect(stored.name == "billing backend" && stored.scopes == [.entitlementsRead] && stored.revokedAt == nil)
            #expect(key.matches(storedHash: stored.hash), "the hash of the printed key is stored")
            let raw = try await pool.query("SELECT key_hash::text FROM checkout_api_keys").map { try $0.decode(String.self) }
            #expect(raw.count == 1 && !raw[0].contains(text.split(separator: "_").last!), "the secret is not stored")

            let test = Output()
            try await APIKeysCommand.run(
                try CommandLineArguments(["api-keys", "create", "--name", "staging", "--scope", "entitlements:read"]),
                environment: Environment(["DATABASE_URL": url])
            ) { test($0) }
            #expect(test.text.hasPrefix("sfk_test_"), "test mode unless STOREFRONT_MODE=live")

            let listed = Output()
            try await APIKeysCommand.run(try CommandLineArguments(["api-keys", "list"]), environment: Environment(["DATABASE_URL": url])) {
                listed($0)
            }
            let lines = listed.text.split(separator: "\n")
            #expect(lines.count == 2 && lines[0].hasPrefix("\(key.keyID)  billing backend  scopes=entitlements:read"))
            #expect(lines.allSatisfy { $0.contains("last_used=never") && $0.contains("revoked=no") })
            #expect(!listed.text.contains(text), "list never shows a key")

            let revoked = Output()
            try await APIKeysCommand.run(
                try CommandLineArguments(["api-keys", "revoke", key.keyID]), environment: Environment(["DATABASE_URL": url])
            ) { revoked($0) }
            #expect(revoked.text == "revoked \(key.keyID)")
            #expect(try await PostgresAPIKeyStore(pool: pool).find(keyID: key.keyID)?.revokedAt != nil)
            await #expect(throws: CommandLineArguments.UsageError.self) {
                try await APIKeysCommand.run(
                    try CommandLineArguments(["api-keys", "revoke", key.keyID]), environment: Environment(["DATABASE_URL": url])
                ) { _ in }
            }
        }
    }

    @Test func unknownScopesAndMissingNamesAreRefusedBeforeAnythingIsStored() async throws {
        try await FreshDatabase.with(prefix: "test_cli_keys") { pool, url in
            _ = try await MigrateCommand.run(environment: Environment(["DATABASE_URL": url]), logger: logger)
            for arguments in [
                ["api-keys", "create", "--name", "x", "--scope", "entitlements:delete"], ["api-keys", "create", "--scope", "entitlements:read"],
                ["api-keys", "create", "--name", "x"], ["api-keys"], ["api-keys", "revoke"],
            ] {
                await #expect(throws: CommandLineArguments.UsageError.self, "\(arguments)") {
                    try await APIKeysCommand.run(try CommandLineArguments(arguments), environment: Environment(["DATABASE_URL": url])) { _ in }
                }
            }
            #expect(try await PostgresAPIKeyStore(pool: pool).list().isEmpty)
        }
    }
}
