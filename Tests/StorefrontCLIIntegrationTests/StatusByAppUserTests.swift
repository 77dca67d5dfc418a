import ServiceSettings
import Foundation
import Postgres
import ServiceRuntime
import StorefrontCLI
import Telemetry
import TestSupport
import Testing

@Suite struct StatusByAppUserTests {
    let logger = Logger(service: "cli-tests", minimumLevel: .critical)

    @Test func statusByAppUserIDShowsWhatThatUserOwnsOnly() async throws {
        try await FreshDatabase.with(prefix: "test_cli") { pool, url in
            let environment = Environment(["DATABASE_URL": url])
            _ = try await MigrateCommand.run(environment: environment, logger: logger)
            let renews = Date().addingTimeInterval(86_400 * 20)
            // Two app users share an email; each owns one subscription.
            try await pool.execute(
                "INSERT INTO app_users (app_user_id, email) VALUES ('user-7', 'grace@example.com'), ('user-8', 'grace@example.com')")
            for (id, owner) in [("42", "user-7"), ("43", "user-8")] {
                try await pool.execute(
                    """
                    INSERT INTO subscriptions (provider, subscription_id, app_user_id, customer_email, plan_name, status, renews_at, last_event_key)
                    VALUES ('lemonsqueezy', \(id), \(owner), 'grace@example.com', 'Premium', 'active', \(renews), \("k" + id))
                    """)
            }

            let output = Output()
            try await StatusCommand.run(try CommandLineArguments(["status", "--user", "user-7"]), environment: environment) { output($0) }
            #expect(output.text.contains("app user: user-7"))
            #expect(output.text.contains("subscription lemonsqueezy:42 status=active active=true owner=user-7"))
            #expect(!output.text.contains("lemonsqueezy:43"))
            #expect(!output.text.contains("user-8"))

            let unknown = Output()
            try await StatusCommand.run(try CommandLineArguments(["status", "--user", "nobody"]), environment: environment) { unknown($0) }
            #expect(unknown.text.contains("app user: nobody"))
            #expect(unknown.text.contains("\"active\" : false"))
            #expect(!unknown.text.contains("subscription lemonsqueezy"))
        }
    }
}
