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

    static func run(_ words: [String], url: String, mode: String = "test", input: String? = nil) async throws -> [String] {
        let output = Lines()
        try await EndpointsCommand.run(
            try CommandLineArguments(["endpoints"] + words), environment: Environment(["DATABASE_URL": url, "STOREFRONT_MODE": mode]),
            input: { input }
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
                ["add", "--url", "https://x.example", "--secret", "plain"],
                // A secret on the command line is refused even when valid: ps and shell history would show it.
                ["add", "--url", "https://x.example", "--secret", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
                ["add", "--url", "https://x.example", "--secret-stdin"],
                ["add", "--url", "https://127.0.0.1/h"], ["add", "--url", "https://[::1]:8443/h"], ["add", "--url", "http://10.1.2.3/h"],
                ["add", "--url", "https://169.254.169.254/latest/meta-data"], ["add", "--url", "https://localhost/h"],
                ["add", "--url", "https://[fd00::1]/h"], ["add", "--url", "https://0.0.0.0/h"],
                ["add", "--url", "https://127.0.0.1/h", "--allow-private=yes"],
                ["disable", "ep_missing"], ["frobnicate"], ["replay", "ep_missing"],
            ] {
                await #expect(throws: (any Error).self, "\(words)") { _ = try await Self.run(words, url: url) }
            }
            #expect(try await Self.run(["list"], url: url).isEmpty)
        }
    }

    @Test func liveModeTakesHttpsOnlyAndPrivateTargetsOnlyWhenAllowed() async throws {
        try await FreshDatabase.with(prefix: "test_endpoints") { pool, url in
            _ = try await MigrateCommand.run(environment: Environment(["DATABASE_URL": url]), logger: Logger(service: "t", minimumLevel: .critical))
            await #expect(throws: (any Error).self) { _ = try await Self.run(["add", "--url", "http://hooks.example/h"], url: url, mode: "live") }
            let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
            // A name that does not resolve here is taken with a note: each send checks it again.
            let added = try await Self.run(
                ["add", "--url", "https://hooks.example/h", "--secret-stdin"], url: url, mode: "live", input: secret + "\n")
            #expect(added.first?.hasPrefix("added ep_") == true && added.last == "secret \(secret)")
            #expect(added.contains { $0.hasPrefix("note: hooks.example does not resolve") }, "\(added)")
            let local = try await Self.run(["add", "--url", "http://127.0.0.1:9/h", "--allow-private"], url: url)
            let id = try #require(local.first?.split(separator: " ").dropFirst().first.map(String.init))
            let stored = try await EndpointStore(pool: pool).all()
            #expect(stored.first { $0.id == id }?.allowPrivateTargets == true)
            #expect(stored.filter { $0.id != id }.allSatisfy { !$0.allowPrivateTargets }, "only when asked for")
            #expect(stored.first { $0.url == "https://hooks.example/h" }?.secret == secret)
        }
    }

    @Test func theBreakersStateIsListedAndEnableClearsIt() async throws {
        try await FreshDatabase.with(prefix: "test_endpoints") { pool, url in
            _ = try await MigrateCommand.run(environment: Environment(["DATABASE_URL": url]), logger: Logger(service: "t", minimumLevel: .critical))
            let id = try #require(try await Self.run(["add", "--url", "https://a.example/h"], url: url).first?.split(separator: " ")[1]).description
            _ = try await pool.execute(
                "UPDATE webhook_endpoints SET failing_since = '2026-01-02T03:04:05Z' WHERE endpoint_id = \(id)")
            #expect(try await Self.run(["list"], url: url).first?.hasPrefix("\(id) enabled (failing since 2026-01-02T03:04:05") == true)
            _ = try await pool.execute(
                """
                UPDATE webhook_endpoints SET enabled = false, disabled_reason = 'failing', disabled_at = '2026-01-07T03:04:05Z'
                WHERE endpoint_id = \(id)
                """)
            let listed = try #require(try await Self.run(["list"], url: url).first)
            #expect(
                listed.contains("disabled (failing since 2026-01-02T03:04:05") && listed.contains("by the circuit breaker at 2026-01-07T03:04:05"),
                "\(listed)")
            #expect(try await Self.run(["enable", id], url: url) == ["enabled \(id)"])
            #expect(try await Self.run(["list"], url: url).first?.hasPrefix("\(id) enabled https://a.example/h") == true)
        }
    }

    @Test func replayOfATimeRangeQueuesTheRangeOnceWithProgressAndRefusesBadInput() async throws {
        try await FreshDatabase.with(prefix: "test_endpoints") { pool, url in
            _ = try await MigrateCommand.run(environment: Environment(["DATABASE_URL": url]), logger: Logger(service: "t", minimumLevel: .critical))
            let id = try #require(try await Self.run(["add", "--url", "https://a.example/h"], url: url).first?.split(separator: " ")[1]).description
            let endpoint = try #require(try await EndpointStore(pool: pool).all().first)
            let events = (0..<5).map { OutgoingEvent(id: "e\($0)", type: "entitlement.granted", orderingKey: "u\($0)", body: "{}") }
            #expect(try await DeliveryStore(pool: pool).enqueue(events, for: [endpoint]) == 5)
            // Three died on the first of March, one was delivered then, one is from February.
            _ = try await pool.execute(
                """
                UPDATE webhook_deliveries SET state = CASE WHEN event_id = 'e3' THEN 'delivered' ELSE 'dead' END,
                    created_at = CASE WHEN event_id = 'e4' THEN timestamptz '2026-02-10T00:00:00Z' ELSE timestamptz '2026-03-01T12:00:00Z' END
                """)
            let replayed = try await Self.run(["replay", "--endpoint", id, "--since", "2026-03-01", "--until", "2026-03-02T00:00:00Z"], url: url)
            #expect(replayed == ["replaying 3 dead deliveries of \(id)", "  3/3", "replayed 3 deliveries"])
            #expect(
                try await Self.run(["replay", "--endpoint", id, "--since", "2026-03-01"], url: url) == [
                    "replaying 0 dead deliveries of \(id)", "replayed 0 deliveries",
                ])
            let withDelivered = try await Self.run(["replay", "--endpoint", id, "--since", "2026-03-01", "--include-delivered"], url: url)
            #expect(withDelivered.last == "replayed 1 delivery", "the delivered one, the others already pending")
            let counts = try await DeliveryStore(pool: pool).counts()[id]
            #expect(counts?.pending == 4 && counts?.dead == 1)
            for words in [
                ["replay", "--endpoint", id, "--since", "yesterday"], ["replay", "--endpoint", id, "--since", "2026-03-02", "--until", "2026-03-01"],
                ["replay", "--endpoint", id, "--since", "2999-01-01"], ["replay", "--endpoint", id, "--until", "2026-03-01"],
                ["replay", "--endpoint", "ep_missing", "--since", "2026-03-01"], ["replay", "--since", "2026-03-01"],
                ["replay", id, "--endpoint", id], ["replay", "--endpoint", id, "--since", "2026-03-01", "--event", "e1"],
            ] {
                await #expect(throws: CommandLineArguments.UsageError.self, "\(words)") { _ = try await Self.run(words, url: url) }
            }
        }
    }
}
