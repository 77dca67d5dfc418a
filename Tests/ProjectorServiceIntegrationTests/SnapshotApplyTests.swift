import Foundation
import Kafka
import BillingModel
import JSONCodec
import Postgres
import ProjectionStore
import Entitlements
import ProjectorService
import Testing

/// Reconciler snapshots through the projector's real write path: the
/// provider's word at fetch time, refined by webhooks received later, owners
/// recovered when no webhook ever came, in any arrival order.
@Suite struct SnapshotApplyTests {
    static let t0 = OwnershipTests.t0

    /// A snapshot record wrapping `data` the way the single-object endpoint answers.
    static func snapshot(
        _ provider: Provider, _ entity: ProviderSnapshot.Entity, id: String, data: String?, fetchedAt offset: TimeInterval,
        customer: String? = nil
    ) throws -> KafkaConsumerRecord {
        let body = data.map { provider == .lemonsqueezy ? #"{"data":\#($0)}"# : #"{"status":true,"message":"ok","data":\#($0)}"# }
        let snapshot = ProviderSnapshot(
            snapshotID: UUID().uuidString.lowercased(), provider: provider, entity: entity, entityID: id, outcome: data == nil ? .notFound : .found,
            body: Array((body ?? "").utf8), fetchStartedAt: t0.addingTimeInterval(offset), fetchFinishedAt: t0.addingTimeInterval(offset + 0.3),
            trigger: "sweep:test")
        return Support.record(
            Topics.snapshots, key: TopicKey.snapshot(provider, entity: entity, entityID: id, customerID: customer),
            value: try RecordCoding.encode(snapshot))
    }

    /// The `data` of a webhook body, as the API returns the same object.
    static func data(of body: [UInt8]) throws -> String {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        return String(decoding: try JSONSerialization.data(withJSONObject: try #require(object["data"])), as: UTF8.self)
    }

    static func row(_ pool: PostgresPool, _ id: String) async throws -> (status: String, owner: String?) {
        let rows = try await pool.query("SELECT status, app_user_id FROM subscriptions WHERE subscription_id = \(id)")
        let first = try #require(rows.first)
        let (status, owner) = try first.decode((String, String?).self)
        return (status, owner)
    }

    @Test(arguments: [[0, 1], [1, 0]])
    func aPaystackPurchaseWhoseWebhooksNeverCameIsRecoveredFromSnapshots(order: [Int]) async throws {
        try await Support.withDatabase { pool in
            let customer = "CUS_lost1", email = "lost@example.com", plan = "PLN_premium1"
            let charge = OwnershipTests.paystackCharge(
                user: "user-lost", customer: customer, email: email, plan: plan, authorization: "AUTH_l1", id: 3001, at: 0)
            let subscription = OwnershipTests.paystackSubscription(
                "subscription.create", code: "SUB_lost", customer: customer, email: email, plan: plan,
                authorization: "AUTH_l1", status: "active")
            let records = [
                try Self.snapshot(.paystack, .transaction, id: "ref-3001", data: try Self.data(of: charge), fetchedAt: 100, customer: customer),
                try Self.snapshot(
                    .paystack, .subscription, id: "SUB_lost", data: try Self.data(of: subscription), fetchedAt: 101, customer: customer),
            ]
            let projector = Support.projector(pool)
            for index in order { _ = try await projector.apply([records[index]]) }
            let (status, owner) = try await Self.row(pool, "SUB_lost")
            #expect(status == "active" && owner == "user-lost")
        }
    }

    @Test func aLemonSqueezyPurchaseSeenOnlyThroughTheApiTakesTheOwnerOfItsCheckout() async throws {
        try await Support.withDatabase { pool in
            let projector = Support.projector(pool)
            var checkout = CheckoutCreatedRecord(
                checkoutID: "chk-lost", provider: .lemonsqueezy, appUserID: "user-ls-lost", email: "Ada@Example.com",
                variantID: CatalogID(provider: .lemonsqueezy, rawID: "472301")!, productID: nil, providerCheckoutID: "lsc-9",
                url: "https://example.test/c", createdAt: Timestamp.parse("2025-03-03T09:10:00Z")!, expiresAt: Timestamp.parse("2025-03-03T10:10:00Z")
            )
            checkout.emailVerified = true
            // A third user's open checkout with the same email, typed (unverified): a pre-fill, no evidence.
            let typed = CheckoutCreatedRecord(
                checkoutID: "chk-typed", provider: .lemonsqueezy, appUserID: "user-attacker", email: "ada@example.com",
                variantID: CatalogID(provider: .lemonsqueezy, rawID: "472301")!, productID: nil, providerCheckoutID: "lsc-10",
                url: "https://example.test/c", createdAt: Timestamp.parse("2025-03-03T09:20:00Z")!, expiresAt: Timestamp.parse("2025-03-03T10:20:00Z")
            )
            // Another user's older checkout for the same variant and email does not match: it closed before.
            var older = CheckoutCreatedRecord(
                checkoutID: "chk-old", provider: .lemonsqueezy, appUserID: "user-other", email: "ada@example.com",
                variantID: CatalogID(provider: .lemonsqueezy, rawID: "472301")!, productID: nil, providerCheckoutID: "lsc-8",
                url: "https://example.test/c", createdAt: Timestamp.parse("2025-03-01T09:10:00Z")!, expiresAt: Timestamp.parse("2025-03-01T10:10:00Z")
            )
            older.emailVerified = true
            for record in [checkout, older, typed] {
                _ = try await projector.apply([Support.record(Topics.checkouts, key: record.key, value: try RecordCoding.encode(record))])
            }
            let webhook = try Support.body("lemonsqueezy.webhook.subscription_created.synthetic.json")
            _ = try await projector.apply([
                try Self.snapshot(.lemonsqueezy, .subscription, id: "880123", data: try Self.data(of: webhook), fetchedAt: 0)
            ])
            let (status, owner) = try await Self.row(pool, "880123")
            #expect(status == "active" && owner == "user-ls-lost")
            let evidence = try await pool.query("SELECT evidence FROM purchase_owners WHERE purchase_id = '880123'")
            let evidences: [String] = try evidence.map { try $0.decode(String.self) }
            #expect(evidences == ["checkout:chk-lost"])
        }
    }

    /// The snapshot comes before the webhook (a projector backlog, a missed
    /// webhook) and two users opened verified checkouts that could have
    /// produced it: the heuristic names nobody; an attacker's webhook
    /// forging the custom data adds nothing; the buyer's own webhook, with
    /// its proof, outranks every match, whatever came first.
    @Test func aSnapshotBeforeItsWebhookNeverHandsThePurchaseToACompetingCheckout() async throws {
        try await Support.withDatabase { pool in
            let projector = Support.projector(pool)
            for (id, user) in [("chk-a", "user-ls-one"), ("chk-b", "user-ls-two")] {
                var checkout = CheckoutCreatedRecord(
                    checkoutID: id, provider: .lemonsqueezy, appUserID: user, email: "ada@example.com",
                    variantID: CatalogID(provider: .lemonsqueezy, rawID: "472301")!, productID: nil, providerCheckoutID: "lsc-\(id)",
                    url: "https://example.test/c", createdAt: Timestamp.parse("2025-03-03T09:10:00Z")!,
                    expiresAt: Timestamp.parse("2025-03-03T10:10:00Z"))
                checkout.emailVerified = true
                _ = try await projector.apply([Support.record(Topics.checkouts, key: checkout.key, value: try RecordCoding.encode(checkout))])
            }
            let webhook = try Support.body("lemonsqueezy.webhook.subscription_created.synthetic.json")
            _ = try await projector.apply([
                try Self.snapshot(.lemonsqueezy, .subscription, id: "880123", data: try Self.data(of: webhook), fetchedAt: 0)
            ])
            #expect(try await Self.row(pool, "880123").owner == nil, "two users could match: the heuristic decides nothing")

            let forged = String(decoding: webhook, as: UTF8.self)
                .replacingOccurrences(of: "7c1f3a52-9d0e-4b8a-a3f1-2e5d6c7b8a91", with: "7c1f3a52-9d0e-4b8a-a3f1-2e5d6c7b8a92")
                .replacingOccurrences(of: "\"storefront_user_id\": \"user-7f3a\"", with: "\"storefront_user_id\": \"user-ls-two\"")
            _ = try await projector.apply([try Support.webhookRecord(.lemonsqueezy, Array(forged.utf8), offset: 1)])
            #expect(try await Self.row(pool, "880123").owner == nil, "custom data without a valid proof is no evidence")

            _ = try await projector.apply([try Support.webhookRecord(.lemonsqueezy, webhook, offset: 2)])
            #expect(try await Self.row(pool, "880123").owner == "user-7f3a", "the proven custom data outranks any checkout match")
        }
    }

    /// A snapshot at T and webhooks received before and after it: every
    /// arrival order gives the same rows (the fold orders by receipt and fetch time).
    @Test func aSnapshotAndLateWebhooksInAnyOrderGiveTheSameRows() async throws {
        let customer = "CUS_mix1", email = "mix@example.com", plan = "PLN_premium1"
        func subscription(_ event: String, status: String) -> [UInt8] {
            OwnershipTests.paystackSubscription(
                event, code: "SUB_mix", customer: customer, email: email, plan: plan, authorization: "AUTH_m1", status: status)
        }
        let records = [
            try OwnershipTests.record(.paystack, subscription("subscription.create", status: "active"), receivedAt: 1),
            try Self.snapshot(
                .paystack, .subscription, id: "SUB_mix", data: try Self.data(of: subscription("x", status: "attention")),
                fetchedAt: 5, customer: customer),
            try OwnershipTests.record(.paystack, subscription("subscription.not_renew", status: "non-renewing"), receivedAt: 10),
        ]
        var dumps: [[String: [String]]] = []
        for order in [[0, 1, 2], [2, 1, 0], [1, 2, 0], [2, 0, 1]] {
            try await Support.withDatabase { pool in
                let projector = Support.projector(pool)
                for index in order { _ = try await projector.apply([records[index]]) }
                #expect(try await Self.row(pool, "SUB_mix").status == "non-renewing", "order \(order)")
                dumps.append(try await Support.dump(pool))
            }
        }
        for dump in dumps.dropFirst() {
            for table in ["subscriptions", "purchase_owners", "orders"] { #expect(dump[table] == dumps[0][table], "table \(table)") }
        }
    }

    @Test func aSnapshotOfAnObjectTheProviderNoLongerHasIsKeptNotApplied() async throws {
        try await Support.withDatabase { pool in
            let outcome = try await Support.projector(pool).apply([
                try Self.snapshot(.lemonsqueezy, .subscription, id: "404404", data: nil, fetchedAt: 0)
            ]
            )
            #expect(outcome.applied == 1 && outcome.deadLettered == 0)
            #expect(
                try await Support.count(pool, "SELECT count(*) FROM billing_events WHERE kind = 'unknown:storefront.snapshot.subscription.not_found'")
                    == 1)
            #expect(try await Support.count(pool, "SELECT count(*) FROM subscriptions") == 0)
        }
    }
}

/// Records no retry can cure are dead-lettered with their reason and never block the partition.
@Suite struct PoisonRecordTests {
    @Test func anIdTooLongForAnIndexIsDeadLetteredAndTheRestApplied() async throws {
        try await Support.withDatabase { pool in
            let sink = RecordingSink()
            let projector = Support.projector(pool, sink: sink)
            // Random text does not compress under PostgreSQL's ~2.7 KB btree row limit.
            let longID = (0..<120).map { _ in UUID().uuidString }.joined()
            let poisoned = try Support.webhookRecord(
                .lemonsqueezy,
                Support.body(
                    "lemonsqueezy.webhook.subscription_created.synthetic.json",
                    replacing: ["\"880123\"": "\"\(longID)\""]), offset: 3)
            let fine = try Support.webhookRecord(.lemonsqueezy, Support.body("lemonsqueezy.webhook.order_created.with_custom_data.json"), offset: 4)
            let outcome = try await projector.apply([poisoned, fine])
            #expect(outcome.applied == 1 && outcome.deadLettered == 1)
            #expect(sink.received.map(\.sourceOffset) == [3])
            #expect(sink.received.first?.reason.contains("54000") == true, "\(sink.received.first?.reason ?? "")")
        }
    }

    @Test func aTimestampNoRecordCouldCarryIsNoTimestamp() async throws {
        try await Support.withDatabase { pool in
            let body = try Support.body(
                "lemonsqueezy.webhook.subscription_created.synthetic.json",
                replacing: ["\"renews_at\": \"": "\"renews_at\": \"0000-01-01T00:00:00+01:00\", \"old_renews_at\": \""])
            let outcome = try await Support.projector(pool).apply([try Support.webhookRecord(.lemonsqueezy, body)])
            #expect(outcome.applied == 1 && outcome.deadLettered == 0)
            // Logged and read back (an event after it re-folds from the log).
            let later = try Support.webhookRecord(.lemonsqueezy, Support.body("lemonsqueezy.webhook.subscription_updated.synthetic.json"))
            #expect(try await Support.projector(pool).apply([later]).deadLettered == 0)
        }
    }
}
