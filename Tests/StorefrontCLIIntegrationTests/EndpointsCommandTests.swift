import ServiceSettings
import CryptoPrimitives
import Foundation
import BillingModel
import Postgres
import ServiceRuntime
import StorefrontCLI
import Synchronization
import Telemetry
import TestSupport
import Testing
import WebhookSenderService

/// `storefront endpoints` against a migrated database: what each subcommand
/// stores, and what it refuses.
@Suite struct EndpointsCommandTests {
    final class Lines: Sendable {
        let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        func callAsFunction(_ line: String) { lines.withLock { $0.append(line) } }
    }

    static func run(_ words: [String], url: String) async throws -> [String] {
        let output = Lines()
        try await EndpointsCommand.run(
            try CommandLineArguments(["endpoints"] + words), environment: Environment(["DATABASE_URL": url])
        ) { output($0) }
        return output.all
    }

    @Test func addListDisableRotateReplayAndRemove() async throws {
        try await FreshDatabase.with(prefix: "test_endpoints") { pool, url in
            _ = try await MigrateCommand.run(environment: Environment(["DATABASE_URL": url]), logger: Logger(service: "t", minimumLevel: .critical))
            let added = try await Self.run(
                ["add", "--url", "https://api.example.com/hooks", "--types", "entitlement.granted,entitlement.revoked"], url: url)
            let id = try #require(added.first?.split(separator: " ").dropFirst().first.map(String.init))
            #expect(id.hasPrefix("ep_"))
            let secret = try #require(added.last?.split(separator: " ").last.map(String.init))
            #expect(try StandardWebhookSignature.key(of: secret).count == 32)

            let stored = try #require(try await EndpointStore(pool: pool).all().first)
            #expect(
                stored.id == id && stored.secret == secret && stored.eventTypes == ["entitlement.granted", "entitlement.revoked"] && stored.enabled)
            let listed = try await Self.run(["list"], url: url)
            #expect(listed == ["\(id) enabled https://api.example.com/hooks [entitlement.granted,entitlement.revoked] pending 0 delivered 0 dead 0"])

            _ = try await Self.run(["disable", id], url: url)
            #expect(try await EndpointStore(pool: pool).enabled().isEmpty)
            _ = try await Self.run(["enable", id], url: url)

            let rotated = try #require(try await Self.run(["rotate-secret", id], url: url).first?.split(separator: " ").last.map(String.init))
            let after = try #require(try await EndpointStore(pool: pool).all().first)
            #expect(after.secret == rotated && after.previousSecret == secret)
            #expect(after.signingSecrets(at: Date()) == [rotated, secret], "the old secret signs beside the new one for a while")

            // A dead delivery goes back in the queue.
            let change = EntitlementChange(
                id: "evt-1", type: .revoked, appUserID: "u1", occurredAt: Date(), cause: .init(kind: .command, provider: nil, reference: "c"),
                before: EntitlementsResponse(entitlements: []), after: EntitlementsResponse(entitlements: []))
            let deliveries = DeliveryStore(pool: pool)
            #expect(try await deliveries.enqueue([OutgoingEvent(change, body: "{}")], for: [after]) == 1)
            let due = try await deliveries.claimDue(limit: 1, lease: .seconds(30))
            try await deliveries.record(try #require(due.first), outcome: .failed(status: 500, reason: "answered 500"), retryAt: nil)
            #expect(try await Self.run(["replay", id], url: url) == ["replayed 1 dead delivery"])
            #expect(try await deliveries.counts()[id]?.pending == 1)

            _ = try await Self.run(["remove", id], url: url)
            #expect(try await EndpointStore(pool: pool).all().isEmpty)
            #expect(try await deliveries.counts().isEmpty, "its queue went with it")
        }
    }

    @Test func typeFiltersAreNamesForRowsWrittenBeforePurchaseEventsAndForTheNewType() async throws {
        try await FreshDatabase.with(prefix: "test_endpoints") { pool, url in
            _ = try await MigrateCommand.run(environment: Environment(["DATABASE_URL": url]), logger: Logger(service: "t", minimumLevel: .critical))
            // As an earlier version stored them: a JSON array of entitlement.* names, or empty for every type.
            _ = try await pool.execute(
                """
                INSERT INTO webhook_endpoints (endpoint_id, url, secret, event_types) VALUES
                    ('ep_old_filtered', 'https://a.example/h', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', '["entitlement.granted","entitlement.revoked"]'),
                    ('ep_old_all', 'https://b.example/h', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', '[]')
                """)
            let added = try await Self.run(
                ["add", "--url", "https://c.example/h", "--types", "purchase.redemption_issued, entitlement.granted"], url: url)
            let id = try #require(added.first?.split(separator: " ").dropFirst().first.map(String.init))
            let byID = Dictionary(uniqueKeysWithValues: try await EndpointStore(pool: pool).all().map { ($0.id, $0) })
            let filtered = try #require(byID["ep_old_filtered"]), all = try #require(byID["ep_old_all"]), new = try #require(byID[id])
            #expect(filtered.eventTypes == ["entitlement.granted", "entitlement.revoked"])
            #expect(filtered.wants("entitlement.granted") && !filtered.wants("purchase.redemption_issued"))
            #expect(all.wants("entitlement.granted") && all.wants("purchase.redemption_issued"))
            #expect(new.eventTypes == ["entitlement.granted", "purchase.redemption_issued"] && !new.wants("entitlement.revoked"))
            #expect(
                try await Self.run(["list"], url: url).contains(
                    "\(id) enabled https://c.example/h [entitlement.granted,purchase.redemption_issued] pending 0 delivered 0 dead 0"))
        }
    }

    @Test func refusesWhatIsNotAnEndpoint() async throws {
        try await FreshDatabase.with(prefix: "test_endpoints") { _, url in
            _ = try await MigrateCommand.run(environment: Environment(["DATABASE_URL": url]), logger: Logger(service: "t", minimumLevel: .critical))
            for words in [
                ["add", "--url", "ftp://example.com/x"], ["add", "--url", "not a url"],
                ["add", "--url", "https://x.example", "--types", "entitlement.nope"],
                ["add", "--url", "https://x.example", "--types", "purchase.nope"],
                ["add", "--url", "https://x.example", "--secret", "plain"], ["disable", "ep_missing"], ["frobnicate"],
            ] {
                await #expect(throws: (any Error).self, "\(words)") { _ = try await Self.run(words, url: url) }
            }
            #expect(try await Self.run(["list"], url: url).isEmpty)
        }
    }
}
