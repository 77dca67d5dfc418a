import Foundation
import Kafka
import BillingModel
import Postgres
import ProjectionStore
@testable import ProjectorService
import Telemetry
import TestSupport
import Testing

/// The projector's whole write path through its least-privilege role
/// (`storefront_projector`, as the deployment's login user has it): every
/// statement of every kind of record succeeds, nothing more is dead-lettered
/// (a refused write would be) and the rows equal those the schema owner writes.
@Suite struct ProjectorRoleTests {
    /// One batch per step, covering every statement: purchases, renewals,
    /// refunds and disputes, a checkout, ownership through charges, a claim,
    /// snapshots (found, not found, owner from a checkout), commands.
    static func batches() throws -> [[KafkaConsumerRecord]] {
        let t0 = OwnershipTests.t0
        let paystackFixtures = try FileManager.default.contentsOfDirectory(atPath: Support.fixtures.path)
            .filter { $0.hasPrefix("paystack.webhook.") }.sorted()
        let paystack = try paystackFixtures.enumerated().map { try Support.webhookRecord(.paystack, Support.body($1), offset: Int64(100 + $0)) }
        let customer = "CUS_dash1", email = "dash@example.com", plan = "PLN_premium1"
        let dashboard = [
            try OwnershipTests.record(
                .paystack,
                OwnershipTests.paystackCharge(
                    user: nil, customer: customer, email: email, plan: plan,
                    authorization: "AUTH_d1", id: 2001, at: 0), receivedAt: 1),
            try OwnershipTests.record(
                .paystack,
                OwnershipTests.paystackSubscription(
                    "subscription.create", code: "SUB_dash", customer: customer,
                    email: email, plan: plan, authorization: "AUTH_d1", status: "active"),
                receivedAt: 2),
        ]
        var claim = SubscriptionCommand(
            commandID: "claim-1", kind: .claimByEmail, provider: .paystack, subscriptionID: "SUB_dash",
            appUserID: "user-first", requestedAt: t0.addingTimeInterval(3600))
        claim.purchaseType = .subscription
        let cancel = SubscriptionCommand(
            commandID: "cancel-1", kind: .cancelRequested, provider: .paystack, subscriptionID: "SUB_dash",
            appUserID: "user-first", requestedAt: t0.addingTimeInterval(3700))
        let commands = try [claim, cancel].map { Support.record(Topics.commands, key: $0.key, value: try RecordCoding.encode($0)) }
        let lsWebhook = try Support.body("lemonsqueezy.webhook.subscription_created.synthetic.json")
        let snapshots = [
            try SnapshotApplyTests.snapshot(
                .lemonsqueezy, .subscription, id: "880123", data: try SnapshotApplyTests.data(of: lsWebhook), fetchedAt: 0),
            try SnapshotApplyTests.snapshot(.lemonsqueezy, .subscription, id: "404404", data: nil, fetchedAt: 0),
        ]
        let once = [try ProjectorApplyTests.allRecords(), paystack, try OwnershipTests.paystackTakeover(), dashboard, commands, snapshots]
        // Then everything again: the duplicate paths (ON CONFLICT) too.
        return once + once
    }

    @Test func everyWriteSucceedsThroughTheProjectorRoleAndMatchesTheOwners() async throws {
        try await Support.withDatabase { owner in
            try await Support.withDatabaseAndURL { restricted, url in
                let login = Support.unique("projector_login")
                try await restricted.execute("CREATE ROLE \(identifier: login) LOGIN IN ROLE \(identifier: ProjectionSchema.ServiceRoles.projector)")
                var components = try #require(URLComponents(string: url))
                components.user = login
                let asProjector = PostgresPool(configuration: try PostgresConfiguration(url: try #require(components.string)))

                do {
                    let sink = RecordingSink(), referenceSink = RecordingSink()
                    let projector = Support.projector(asProjector, sink: sink)
                    let reference = Support.projector(owner, sink: referenceSink)
                    // Its start-up with PROJECTOR_MIGRATE on: the schema is current, nothing to do.
                    #expect(try await ProjectionSchema.migrate(pool: asProjector).isEmpty)
                    for batch in try Self.batches() {
                        let outcome = try await projector.apply(batch)
                        let expected = try await reference.apply(batch)
                        #expect(
                            outcome.deadLettered == expected.deadLettered && outcome.applied == expected.applied
                                && outcome.duplicates == expected.duplicates, "\(outcome) vs \(expected)")
                    }
                    // A refused write would be dead-lettered with its reason.
                    #expect(sink.received.map(\.reason) == referenceSink.received.map(\.reason))
                    let expected = try await Support.dump(owner)
                    let actual = try await Support.dump(restricted)
                    for table in expected.keys.sorted() {
                        #expect(actual[table] == expected[table], "table \(table) differs")
                    }
                    #expect((expected["subscriptions"]?.count ?? 0) >= 4)
                    #expect((expected["purchase_owners"]?.count ?? 0) >= 3)
                    // The entitlement outbox through the role: the same changes, and its relay marks them published.
                    let changes: PostgresQuery = "SELECT app_user_id || ' ' || event_type FROM entitlement_outbox ORDER BY seq"
                    let announced = try await owner.query(changes).map { try $0.decode(String.self) }
                    #expect(!announced.isEmpty)
                    #expect(try await restricted.query(changes).map { try $0.decode(String.self) } == announced)
                    let relay = EntitlementOutboxRelay(
                        pool: asProjector, settings: .init(batchSize: 10_000), signer: TestEntitlementSigning.signer, registry: MetricsRegistry(),
                        logger: Logger(service: "projector-tests", minimumLevel: .critical)
                    ) { messages in KafkaOrderedDelivery(acknowledged: messages.count, failure: nil) }
                    #expect(try await relay.relayOnce().published == announced.count)
                } catch {
                    Issue.record("\(error)")
                }
                await asProjector.close()
                _ = try? await restricted.execute("DROP OWNED BY \(identifier: login)")
                _ = try? await restricted.execute("DROP ROLE \(identifier: login)")
            }
        }
    }
}
