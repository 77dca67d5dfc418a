import ServiceSettings
import Foundation
import Postgres
import ServiceRuntime
import StorefrontCLI
import Telemetry
import TestSupport
import Testing

/// `storefront report` counts promotional grants apart, never as revenue.
@Suite struct GrantReportTests {
    let logger = Logger(service: "cli-tests", minimumLevel: .critical)

    @Test func grantsAreCountedApartFromRevenue() async throws {
        try await FreshDatabase.with(prefix: "test_cli") { pool, url in
            let environment = Environment(["DATABASE_URL": url])
            _ = try await MigrateCommand.run(environment: environment, logger: logger)
            // December 2026: two premium grants given (one revoked in it), one trial grant from November still running.
            let rows: [(String, String, String, String, String?)] = [
                ("grant_a", "premium", "2026-12-02T00:00:00Z", "2027-01-02T00:00:00Z", nil),
                ("grant_b", "premium", "2026-12-03T00:00:00Z", "2027-01-03T00:00:00Z", "2026-12-04T00:00:00Z"),
                ("grant_c", "trial_pro", "2026-11-20T00:00:00Z", "2027-02-20T00:00:00Z", nil),
                ("grant_d", "premium", "2026-10-01T00:00:00Z", "2026-10-31T00:00:00Z", nil),
            ]
            for (id, entitlement, starts, expires, revoked) in rows {
                try await pool.execute(
                    """
                    INSERT INTO entitlement_grants (grant_id, app_user_id, entitlement, starts_at, expires_at, granted_by, grant_command_id,
                        requested_at, revoked_at)
                    VALUES (\(id), 'u', \(entitlement), \(starts)::timestamptz, \(expires)::timestamptz, 'api_key:k', \("c-" + id),
                        \(starts)::timestamptz, \(revoked)::timestamptz)
                    """)
            }
            let arguments = ["report", "--from", "2026-12-01", "--to", "2027-01-01"]
            let table = Output()
            try await ReportCommand.run(try CommandLineArguments(arguments), environment: environment) { table($0) }
            #expect(table.text.contains("promotional grants (not revenue)"), "\(table.text)")
            #expect(table.text.contains("premium          2        1               1"), "\(table.text)")
            #expect(table.text.contains("trial_pro        0        0               1"), "\(table.text)")
            #expect(table.text.contains("no subscriptions, refunds or disputes in this period"), "grants are no revenue: \(table.text)")

            let json = Output()
            try await ReportCommand.run(try CommandLineArguments(arguments + ["--format", "json"]), environment: environment) { json($0) }
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.text.utf8)) as? [String: Any])
            let grants = try #require(object["grants"] as? [[String: Any]])
            #expect(grants.map { $0["entitlement"] as? String } == ["premium", "trial_pro"])
            #expect(grants.first?["given"] as? Int == 2 && grants.first?["revoked"] as? Int == 1 && grants.first?["running_at_end"] as? Int == 1)
            #expect((object["rows"] as? [Any])?.isEmpty == true)
        }
    }
}
