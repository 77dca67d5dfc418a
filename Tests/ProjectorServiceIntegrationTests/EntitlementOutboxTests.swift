import Foundation
import Kafka
import BillingModel
import Postgres
import ProjectionStore
import Synchronization
import Telemetry
import TestSupport
import Testing
import Webhooks
import EntitlementSigning
@testable import ProjectorService

/// The transactional outbox through the projector's real write path and
/// PostgreSQL, and its relay through the real broker: a purchase, a renewal,
/// a refund and a claim each record exactly one change, in order per user,
/// and nothing is lost when the relay dies between commit and publish.
@Suite struct EntitlementOutboxTests {
    static let t0 = OwnershipTests.t0

    /// The clock the outbox judges entitlements by, moved by each test along its story.
    final class TestClock: Sendable {
        let now = Mutex(EntitlementOutboxTests.t0)
        func set(_ offset: TimeInterval) { now.withLock { $0 = EntitlementOutboxTests.t0.addingTimeInterval(offset) } }
    }

    static func projector(_ pool: PostgresPool, clock: TestClock) -> Projector {
        let outbox = EntitlementOutbox(resolver: MoneyBackTests.resolver, now: { clock.now.withLock { $0 } })
        return Projector(
            writer: ProjectionWriter(pool: pool, outbox: outbox), deadLetters: RecordingSink(),
            metrics: ProjectorMetrics(registry: MetricsRegistry()),
            ownership: TestOwnership.proof, consumerName: "outbox-tests", logger: Logger(service: "outbox-tests", minimumLevel: .error))
    }

    /// The outbox in `seq` order: (user, type, cause kind, cause reference, published).
    static func outbox(_ pool: PostgresPool) async throws -> [EntitlementChange] {
        try await pool.query("SELECT record FROM entitlement_outbox ORDER BY seq").map { row in
            try RecordCoding.decode(EntitlementChange.self, from: Array(try row.decode(String.self).utf8))
        }
    }

    static func paystack(_ body: [UInt8], at offset: TimeInterval) throws -> KafkaConsumerRecord {
        try OwnershipTests.record(.paystack, body, receivedAt: offset)
    }

    /// When the outbox judges each step of the story: an hour after the
    /// purchase, an hour after the renewal, just after the refund.
    static let storyTimes: [TimeInterval] = [3600, 30 * 86_400 + 3600, 30 * 86_400 + 7300]

    /// user-b's story: buys (charge + subscription), renews a month later (charge + invoice), gets the renewal refunded.
    static func purchaseRenewalRefund() throws -> [[KafkaConsumerRecord]] {
        let c = MoneyBackTests.self
        let purchase = Array(try OwnershipTests.paystackTakeover().prefix(2))
        let renewal = [
            try paystack(
                OwnershipTests.paystackCharge(
                    user: "user-b", customer: c.customer, email: c.email, plan: c.plan, authorization: "AUTH_b1", id: 1002, at: 30 * 86_400),
                at: 30 * 86_400 + 1),
            try paystack(c.invoice(subscription: "SUB_b", reference: "ref-1002"), at: 30 * 86_400 + 2),
        ]
        let refund = [try paystack(c.refund(reference: "ref-1002", amount: nil), at: 30 * 86_400 + 7200)]
        return [purchase, renewal, refund]
    }

    @Test func aPurchaseARenewalAndARefundAreOneChangeEachInOrder() async throws {
        try await Support.withDatabase { pool in
            let clock = TestClock()
            let projector = Self.projector(pool, clock: clock)
            let steps = try Self.purchaseRenewalRefund()
            for (step, offset) in zip(steps, Self.storyTimes) {
                clock.set(offset)
                _ = try await projector.apply(step)
                // Delivered again (a consumer that died before its commit): nothing new to announce.
                _ = try await projector.apply(step)
            }
            let changes = try await Self.outbox(pool)
            #expect(changes.map(\.type) == [.granted, .renewed, .refunded])
            #expect(Set(changes.map(\.appUserID)) == ["user-b"])
            #expect(Set(changes.map(\.id)).count == 3)
            // Each change names the record that caused it, and chains: one's after is the next one's before.
            #expect(changes.allSatisfy { $0.cause.kind == .providerEvent && $0.cause.provider == .paystack })
            #expect(changes[0].before.entitlements.isEmpty && changes[0].after.entitlements.first?.isActive == true)
            #expect(changes[1].before == changes[0].after && changes[2].before == changes[1].after)
            #expect(changes[1].after.entitlements.first?.expiresAt == Self.t0.addingTimeInterval(60 * 86_400))
            #expect(changes[2].after.entitlements.first?.isActive == false && changes[2].after.entitlements.first?.refundedAt != nil)
            // The before and after lists are what GET /api/entitlements answers at that time.
            let reader = SubscriptionStatusReader(pool: pool, resolver: MoneyBackTests.resolver)
            let now = try await reader.snapshot(
                for: ProjectionUser(appUserID: "user-b", verifiedEmail: nil), at: Self.t0.addingTimeInterval(30 * 86_400 + 7300))
            #expect(
                try RecordCoding.encode(EntitlementsResponse(entitlements: now.entitlements)) == (try RecordCoding.encode(changes[2].after)))
            #expect(try await Support.count(pool, "SELECT count(*) FROM entitlement_touched") == 0, "the touched list never outlives its transaction")
        }
    }

    /// The outbox reads every touched user at once; each list must be the one
    /// `GET /api/entitlements` gives that user alone (same rows, same order).
    @Test func theBatchedReadIsEachUsersOwnAnswer() async throws {
        try await Support.withDatabase { pool in
            let projector = Support.projector(pool)
            for batch in try ProjectorRoleTests.batches() { _ = try await projector.apply(batch) }
            let users = try await pool.query(
                "SELECT app_user_id FROM subscriptions WHERE app_user_id IS NOT NULL UNION SELECT app_user_id FROM orders WHERE app_user_id IS NOT NULL"
            ).map { try $0.decode(String.self) }
            #expect(users.count >= 3)
            let now = Self.t0.addingTimeInterval(3600)
            let batched = try await pool.withConnection { connection in
                try await SubscriptionStatusReader.entitlements(
                    ownedBy: users + ["nobody"], resolver: MoneyBackTests.resolver, at: now, on: connection)
            }
            let reader = SubscriptionStatusReader(pool: pool, resolver: MoneyBackTests.resolver)
            var granting = 0
            for user in users {
                let alone = try await reader.snapshot(for: ProjectionUser(appUserID: user, verifiedEmail: nil), at: now).entitlements
                #expect(batched[user] == alone, "\(user)")
                granting += alone.isEmpty ? 0 : 1
            }
            #expect(granting >= 3)
            #expect(batched["nobody"] == [])
        }
    }

    @Test func aClaimIsATransferToTheClaimerAndAnUnownedPurchaseAnnouncesNothing() async throws {
        try await Support.withDatabase { pool in
            let clock = TestClock()
            clock.set(3600)
            let projector = Self.projector(pool, clock: clock)
            let customer = "CUS_dash1", email = "dash@example.com", plan = "PLN_premium1"
            _ = try await projector.apply([
                try Self.paystack(
                    OwnershipTests.paystackCharge(user: nil, customer: customer, email: email, plan: plan, authorization: "AUTH_d1", id: 2001, at: 0),
                    at: 1),
                try Self.paystack(
                    OwnershipTests.paystackSubscription(
                        "subscription.create", code: "SUB_dash", customer: customer, email: email, plan: plan, authorization: "AUTH_d1",
                        status: "active"), at: 2),
            ])
            #expect(try await Self.outbox(pool).isEmpty, "nobody owns it yet: no user to tell")

            var claim = SubscriptionCommand(
                commandID: UUID().uuidString.lowercased(), kind: .claimByEmail, provider: .paystack, subscriptionID: "SUB_dash",
                appUserID: "user-claimer", requestedAt: Self.t0.addingTimeInterval(3600))
            claim.purchaseType = .subscription
            let record = Support.record(Topics.commands, key: claim.key, value: try RecordCoding.encode(claim))
            _ = try await projector.apply([record])
            _ = try await projector.apply([record])
            let changes = try await Self.outbox(pool)
            #expect(changes.map(\.type) == [.transferred])
            #expect(changes.first?.appUserID == "user-claimer")
            #expect(changes.first?.cause == EntitlementChange.Cause(kind: .claim, provider: .paystack, reference: claim.commandID))
            #expect(changes.first?.after.entitlements.first?.isActive == true)
        }
    }

    /// Migration 11: a write that changes only what no entitlement is
    /// computed from (the fold's position, the projection time, portal
    /// links) touches no one; a write of an entitlement fact touches the owner.
    @Test func onlyWritesOfEntitlementFactsTouchTheirOwner() async throws {
        try await Support.withDatabase { pool in
            let projector = Self.projector(pool, clock: TestClock())
            for step in try Self.purchaseRenewalRefund() { _ = try await projector.apply(step) }
            let owned = try await Support.count(pool, "SELECT count(*) FROM subscriptions WHERE app_user_id IS NOT NULL")
            #expect(owned >= 1)
            let touched: PostgresQuery = "SELECT count(*) FROM entitlement_touched"
            #expect(try await Support.count(pool, touched) == 0)
            _ = try await pool.execute(
                """
                UPDATE subscriptions SET projected_at = now(), last_event_key = last_event_key || '-again',
                    customer_portal_url = 'https://example.com/portal', portal_urls_seen_at = now()
                """)
            #expect(try await Support.count(pool, touched) == 0, "no entitlement fact changed")
            _ = try await pool.execute("UPDATE subscriptions SET test_mode = NOT coalesce(test_mode, false), projected_at = now()")
            #expect(try await Support.count(pool, touched) == owned)
            _ = try await pool.execute(
                "INSERT INTO orders (provider, order_id, app_user_id, status) VALUES ('lemonsqueezy', 'o-1', 'user-o', 'paid')")
            _ = try await pool.execute("DELETE FROM entitlement_touched")
            _ = try await pool.execute("UPDATE orders SET status = status")
            #expect(try await Support.count(pool, touched) == 0, "an order written unchanged")
            _ = try await pool.execute("UPDATE orders SET refunded_at = now() WHERE order_id = 'o-1'")
            #expect(try await Support.count(pool, "SELECT count(*) FROM entitlement_touched WHERE app_user_id = 'user-o'") == 1)
        }
    }

    /// Migration 13: one statement updating hundreds of rows touches each
    /// owner whose facts changed once, and an owner move touches both
    /// owners as transferred (the triggers pair old and new rows by key).
    @Test func aWideUpdateTouchesEachChangedOwnerOnceAndAMoveTouchesBoth() async throws {
        try await Support.withDatabase { pool in
            _ = try await pool.execute(
                """
                INSERT INTO orders (provider, order_id, app_user_id, status)
                SELECT 'lemonsqueezy', 'wide-' || i, CASE WHEN i % 10 = 0 THEN NULL ELSE 'user-' || i END, 'paid'
                FROM generate_series(1, 600) AS i
                """)
            _ = try await pool.execute("DELETE FROM entitlement_touched")
            // Half the orders refunded in one statement: 300 rows, 240 of them owned (every tenth has no owner).
            _ = try await pool.execute(
                "UPDATE orders SET refunded_at = now() WHERE order_id LIKE 'wide-%' AND split_part(order_id, '-', 2)::int % 2 = 0")
            #expect(try await Support.count(pool, "SELECT count(*) FROM entitlement_touched") == 240)
            #expect(try await Support.count(pool, "SELECT count(DISTINCT app_user_id) FROM entitlement_touched") == 240)
            #expect(try await Support.count(pool, "SELECT count(*) FROM entitlement_touched WHERE transferred") == 0)
            _ = try await pool.execute("DELETE FROM entitlement_touched")
            // Every order written again unchanged: no one.
            _ = try await pool.execute("UPDATE orders SET status = status WHERE order_id LIKE 'wide-%'")
            #expect(try await Support.count(pool, "SELECT count(*) FROM entitlement_touched") == 0)
            // Two moves in one statement: from user-1 to user-x, and from nobody (wide-10) to user-y.
            _ = try await pool.execute(
                """
                UPDATE orders SET app_user_id = CASE order_id WHEN 'wide-1' THEN 'user-x' ELSE 'user-y' END
                WHERE order_id IN ('wide-1', 'wide-10')
                """)
            let moved = try await pool.query(
                "SELECT app_user_id, purchase_id, transferred FROM entitlement_touched ORDER BY app_user_id")
            let rows = try moved.map { try $0.decode((String, String, Bool).self) }
            #expect(rows.map(\.0) == ["user-1", "user-x", "user-y"], "\(rows)")
            #expect(rows.allSatisfy { $0.2 }, "every owner of a moved purchase is told it was transferred: \(rows)")
            #expect(rows.map(\.1) == ["wide-1", "wide-1", "wide-10"])
        }
    }

    /// The relay dies twice: once after the broker took a record but before
    /// it was marked (so it goes out again), once with rows not yet sent. A
    /// fresh relay publishes the rest; a consumer deduping by id sees every
    /// change once, in order.
    @Test func aRelayCrashBetweenCommitAndPublishLosesNothing() async throws {
        let brokers = try Support.brokers()
        try await Support.withDatabase { pool in
            let clock = TestClock()
            let projector = Self.projector(pool, clock: clock)
            for (step, offset) in zip(try Self.purchaseRenewalRefund(), Self.storyTimes) {
                clock.set(offset)
                _ = try await projector.apply(step)
            }
            // The projector "crashed" after its commits: three rows, none published.
            let recorded = try await Self.outbox(pool)
            #expect(recorded.count == 3)
            #expect(try await Support.count(pool, "SELECT count(*) FROM entitlement_outbox WHERE published_at IS NULL") == 3)

            let client = KafkaClientConfiguration(bootstrapServers: brokers, clientID: "outbox-tests")
            try await MessagingSettings(client: client).ensureTopics([Topics.entitlements])
            let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: client))
            let sends = Mutex(0)
            // First relay: the broker takes the first record, then the relay dies before marking it.
            let dying = EntitlementOutboxRelay(
                pool: pool, settings: .init(batchSize: 10), signer: TestEntitlementSigning.signer, registry: MetricsRegistry(),
                logger: Logger(service: "outbox-tests", minimumLevel: .critical)
            ) { messages in
                let n = sends.withLock {
                    $0 += 1; return $0
                }
                if n == 1, let first = messages.first { _ = try? await producer.sendAndAwait(first) }
                return KafkaOrderedDelivery(acknowledged: 0, failure: KafkaError(.deliveryFailed, reason: "the relay crashed"))
            }
            let first = try await dying.relayOnce()
            #expect(first.published == 0 && first.failure != nil)
            #expect(try await Support.count(pool, "SELECT count(*) FROM entitlement_outbox WHERE published_at IS NULL") == 3)

            let relay = EntitlementOutboxRelay(
                pool: pool, settings: .init(batchSize: 2), signer: TestEntitlementSigning.signer, registry: MetricsRegistry(),
                logger: Logger(service: "outbox-tests", minimumLevel: .critical)
            ) { messages in await producer.sendInOrderAndAwait(messages) }
            #expect(try await relay.relayOnce().published == 2, "a round is bounded by the batch size")
            #expect(try await relay.relayOnce().published == 1)
            #expect(try await relay.relayOnce().published == 0, "published rows are not sent again")
            _ = await producer.shutdown()

            let ids = Set(recorded.map(\.id))
            let consumer = try ProjectorLiveTests.consumer(brokers, group: Support.unique("outbox-read"), topics: [Topics.entitlements])
            var seen: [String] = []
            let deadline = ContinuousClock.now + .seconds(60)
            while seen.count < 4 {
                try #require(ContinuousClock.now < deadline, "the changes did not arrive")
                guard let batch = try await consumer.nextBatch(timeout: .seconds(1)) else { continue }
                for record in batch.records {
                    guard let value = record.value, let change = try? RecordCoding.decode(EntitlementChange.self, from: value),
                        ids.contains(change.id)
                    else { continue }
                    #expect(record.key == Array("user-b".utf8))
                    // Signed by the relay as it sent it: the consumers' verifier takes it.
                    #expect(TestEntitlementSigning.verifier.rejection(of: record) == nil)
                    seen.append(change.id)
                }
            }
            await consumer.close()
            // At least once on the topic: the first record twice; once each after deduping, in the outbox's order.
            #expect(seen.count == 4)
            var deduped: [String] = []
            for id in seen where !deduped.contains(id) { deduped.append(id) }
            #expect(deduped == recorded.map(\.id))
        }
    }
}
