import Foundation
import Postgres
import TestSupport
import Testing

/// Least privilege in the running stack (`scripts/stack.sh`, as compose
/// does it): each service connects as its own database user, whose role
/// refuses what the service never does, and each process holds only the
/// secrets it uses. (Every other test of the suite proves the services
/// still work that way.)
extension EndToEndTests {
    /// The environment a process of the stack was started with.
    func environment(of pidFile: String, _ stack: LiveStack) throws -> [String: String] {
        let pid = try String(contentsOfFile: "\(stack.state)/pids/\(pidFile).pid", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let raw = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ"))
        var result: [String: String] = [:]
        for entry in raw.split(separator: 0) {
            let text = String(decoding: entry, as: UTF8.self)
            guard let equals = text.firstIndex(of: "=") else { continue }
            result[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        return result
    }

    @Test func eachProcessHoldsOnlyTheSecretsItUses() throws {
        let stack = try self.stack
        let secrets = [
            "LEMONSQUEEZY_API_KEY", "LEMONSQUEEZY_WEBHOOK_SECRET", "PAYSTACK_SECRET_KEY", "AUTH_JWT_SECRET", "OWNERSHIP_PROOF_KEY", "DATABASE_URL",
            "ENTITLEMENT_SIGNING_KEY",
        ]
        let expected: [String: Set<String>] = [
            "catalog": ["LEMONSQUEEZY_API_KEY", "PAYSTACK_SECRET_KEY"],
            "checkout": ["LEMONSQUEEZY_API_KEY", "PAYSTACK_SECRET_KEY", "AUTH_JWT_SECRET", "OWNERSHIP_PROOF_KEY", "DATABASE_URL"],
            "webhook-receiver-1": ["LEMONSQUEEZY_WEBHOOK_SECRET", "PAYSTACK_SECRET_KEY"],
            // The checkout's ownership proof key: it checks the proofs in custom data.
            // ... and the entitlement changes' private key, which no other process holds.
            "subscription-projector-1": ["OWNERSHIP_PROOF_KEY", "DATABASE_URL", "ENTITLEMENT_SIGNING_KEY"],
            "reconciler-1": ["LEMONSQUEEZY_API_KEY", "PAYSTACK_SECRET_KEY", "DATABASE_URL"],
        ]
        for (process, allowed) in expected.sorted(by: { $0.key < $1.key }) {
            let environment = try environment(of: process, stack)
            let held = Set(secrets.filter { environment[$0] != nil || environment[$0 + "_FILE"] != nil })
            #expect(held == allowed, "\(process) holds \(held.sorted()), should hold \(allowed.sorted())")
        }
        // None of them connects as the superuser.
        for process in ["checkout", "subscription-projector-1", "reconciler-1"] {
            let url = try environment(of: process, stack)["DATABASE_URL"] ?? ""
            #expect(!url.hasPrefix("postgresql://postgres@"), "\(process): \(url)")
        }
    }

    @Test func eachServiceConnectsAsItsOwnUserAndItsRoleRefusesTheRest() async throws {
        let stack = try self.stack
        // Who is connected as whom (the reconciler's pool connects at its first sweep).
        let users = try await stack.eventually(timeout: .seconds(60), "checkout, projector and reconciler connected") {
            try await stack.withDatabase { pool -> [String: String]? in
                var found: [String: String] = [:]
                for row in try await pool.query(
                    """
                    SELECT DISTINCT application_name, usename::text FROM pg_stat_activity
                    WHERE application_name IN ('checkout', 'subscription_projector', 'reconciler')
                    """)
                {
                    let (application, user) = try row.decode((String, String).self)
                    found[application] = user
                }
                return found.count == 3 ? found : nil
            }
        }
        #expect(users == ["checkout": "checkout", "subscription_projector": "subscription_projector", "reconciler": "reconciler"])

        func expectRefused(_ urlSetting: String, _ statement: PostgresQuery, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let url = try #require(stack.settings[urlSetting], sourceLocation: sourceLocation)
            let pool = PostgresPool(configuration: try PostgresConfiguration(url: url), options: .init(maximumConnections: 1))
            do {
                try await pool.execute(statement)
                Issue.record("\(urlSetting): allowed, but should be refused: \(statement.sql)", sourceLocation: sourceLocation)
            } catch let error as PostgresError {
                #expect(error.sqlState == "42501", "\(urlSetting) \(statement.sql): \(error.debugDescription)", sourceLocation: sourceLocation)
            }
            await pool.close()
        }
        // The checkout reads the projection but never writes it.
        try await expectRefused("CHECKOUT_DATABASE_URL", "UPDATE subscriptions SET status = 'active'")
        try await expectRefused("CHECKOUT_DATABASE_URL", "DELETE FROM billing_events")
        // The reconciler cannot write at all.
        try await expectRefused("RECONCILER_DATABASE_URL", "UPDATE subscriptions SET status = 'cancelled'")
        try await expectRefused(
            "RECONCILER_DATABASE_URL",
            "INSERT INTO commands (command_id, kind, provider, subscription_id, requested_at) VALUES ('x', 'k', 'p', 's', now())")
        try await expectRefused("RECONCILER_DATABASE_URL", "SELECT email_token FROM subscriptions")
        // The projector writes, but never deletes the log, rewrites an owner or changes the schema.
        try await expectRefused("PROJECTOR_DATABASE_URL", "DELETE FROM billing_events")
        try await expectRefused("PROJECTOR_DATABASE_URL", "UPDATE purchase_owners SET app_user_id = 'mallory'")
        try await expectRefused("PROJECTOR_DATABASE_URL", "CREATE TABLE sneaky (id int)")
    }
}
