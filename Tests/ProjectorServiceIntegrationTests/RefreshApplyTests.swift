import Foundation
import Kafka
import BillingModel
import Postgres
import ProjectionStore
import Entitlements
import ProjectorService
import Testing

/// A subscription past its period end, through the projector's real write
/// path: the checkout's `refresh_requested` command is accepted (audited,
/// nothing else), and the snapshot the reconciler publishes after it ends
/// access at once, where the renewal grace alone would have kept it.
@Suite struct RefreshApplyTests {
    /// The fixture's `renews_at`; the webhook says `active` and nothing follows.
    static let renewsAt = Timestamp.parse("2025-04-03T09:15:38Z")!
    static let subscriptionID = "880123"
    static let owner = "user-7f3a"

    static func entitlement(_ pool: PostgresPool, at now: Date) async throws -> EntitlementInfo {
        let reader = SubscriptionStatusReader(pool: pool, resolver: EntitlementResolver(policy: AccessPolicy(testDeployment: true)))
        let snapshot = try await reader.snapshot(for: ProjectionUser(appUserID: owner, verifiedEmail: nil), at: now)
        return try #require(snapshot.entitlements.first)
    }

    @Test func aRefreshCommandIsAcceptedAndTheSnapshotAfterItEndsAccess() async throws {
        try await Support.withDatabase { pool in
            let sink = RecordingSink()
            let projector = Support.projector(pool, sink: sink)
            let created = try Support.body("lemonsqueezy.webhook.subscription_created.synthetic.json")
            #expect(try await projector.apply([try Support.webhookRecord(.lemonsqueezy, created)]).applied == 1)

            // Three days past the period end, no news: the renewal grace keeps access, the end is not hidden.
            let read = Self.renewsAt.addingTimeInterval(3 * 86_400)
            let inGrace = try await Self.entitlement(pool, at: read)
            #expect(inGrace.isActive && inGrace.willRenew && inGrace.expiresAt == Self.renewsAt)

            // The checkout's refresh command: recorded once, no dead letter, the row unchanged.
            let command = SubscriptionCommand(
                commandID: "refresh-880123", kind: .refreshRequested, provider: .lemonsqueezy, subscriptionID: Self.subscriptionID,
                appUserID: Self.owner, requestedAt: read)
            let record = Support.record(Topics.commands, key: command.key, value: try RecordCoding.encode(command), offset: 1)
            let applied = try await projector.apply([record])
            #expect(applied.applied == 1 && applied.deadLettered == 0 && sink.received.isEmpty)
            #expect(try await projector.apply([record]).duplicates == 1, "a redelivered command changes nothing")
            #expect(try await Support.count(pool, "SELECT count(*) FROM commands WHERE kind = 'refresh_requested'") == 1)
            #expect(try await SnapshotApplyTests.row(pool, Self.subscriptionID).status == "active")
            #expect(try await Self.entitlement(pool, at: read).isActive)

            // The reconciler's fetch: the provider says it expired at the period end.
            let expired = try Support.body(
                "lemonsqueezy.webhook.subscription_created.synthetic.json",
                replacing: [
                    #""status": "active""#: #""status": "expired""#, #""ends_at": null"#: #""ends_at": "2025-04-03T09:15:38.000000Z""#,
                ])
            let data = try SnapshotApplyTests.data(of: expired)
            #expect(data.contains(#""status":"expired""#), "the fixture's status was replaced")
            let snapshot = ProviderSnapshot(
                snapshotID: UUID().uuidString.lowercased(), provider: .lemonsqueezy, entity: .subscription, entityID: Self.subscriptionID,
                outcome: .found, body: Array(#"{"data":\#(data)}"#.utf8), fetchStartedAt: read.addingTimeInterval(1),
                fetchFinishedAt: read.addingTimeInterval(1.2), trigger: "command:\(command.commandID)")
            let snapshotRecord = Support.record(
                Topics.snapshots, key: TopicKey.snapshot(.lemonsqueezy, entity: .subscription, entityID: Self.subscriptionID, customerID: nil),
                value: try RecordCoding.encode(snapshot), offset: 2)
            #expect(try await projector.apply([snapshotRecord]).applied == 1 && sink.received.isEmpty)
            #expect(try await SnapshotApplyTests.row(pool, Self.subscriptionID).status == "expired")
            let ended = try await Self.entitlement(pool, at: read.addingTimeInterval(2))
            #expect(!ended.isActive && !ended.willRenew)
        }
    }
}
