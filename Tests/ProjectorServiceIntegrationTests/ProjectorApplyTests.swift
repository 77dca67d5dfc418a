import Foundation
import Kafka
import BillingModel
import Postgres
import ProjectionStore
import ProjectorService
import Telemetry
import Testing

/// Drives ``Projector/apply(_:)`` directly with constructed records against a fresh database.
@Suite struct ProjectorApplyTests {
    static let lsSubscription = [
        "lemonsqueezy.webhook.subscription_created.synthetic.json",
        "lemonsqueezy.webhook.subscription_payment_success.synthetic.json",
        "lemonsqueezy.webhook.subscription_updated.synthetic.json",
        "lemonsqueezy.webhook.order_created.with_custom_data.json",
    ]

    /// Paystack purchase of one customer: subscription, a renewal charge
    /// (no subscription code; linked by customer + plan), then disable.
    static func paystackPurchase() throws -> [[UInt8]] {
        let link = ["CUS_mfkew13owtwcmb2": "CUS_xnxdt6s1zg1f4nx", "PLN_a5vr5skxg72f4lr": "PLN_gx2wn530m0i3w3m"]
        return [
            try Support.body("paystack.webhook.subscription.create.json"),
            try Support.body("paystack.webhook.charge.success.subscription_renewal.json", replacing: link),
            try Support.body("paystack.webhook.subscription.disable.json"),
            try Support.body("paystack.webhook.charge.success.json"),
        ]
    }

    static func allRecords() throws -> [KafkaConsumerRecord] {
        var records = try lsSubscription.enumerated().map { try Support.webhookRecord(.lemonsqueezy, Support.body($1), offset: Int64($0)) }
        records += try paystackPurchase().enumerated().map { try Support.webhookRecord(.paystack, $1, offset: Int64(10 + $0)) }
        records.append(Support.record(Topics.checkouts, key: "lemonsqueezy:user-7f3a", value: try RecordCoding.encode(checkout())))
        return records
    }

    static func checkout(id: String = "2d9c6a40-5b1e-4f7a-9c3d-8e2f1a0b4c6d", user: String = "user-7f3a") -> CheckoutCreatedRecord {
        CheckoutCreatedRecord(
            checkoutID: id, provider: .lemonsqueezy, appUserID: user, email: "buyer@example.com",
            variantID: CatalogID(provider: .lemonsqueezy, rawID: "1")!, productID: nil, providerCheckoutID: "lsc-1",
            url: "https://example.test/checkout", createdAt: Timestamp.parse("2025-03-03T09:00:00Z")!, expiresAt: nil)
    }

    @Test func purchasesOfBothProvidersProduceSubscriptionAndOrderRows() async throws {
        try await Support.withDatabase { pool in
            let projector = Support.projector(pool)
            let outcome = try await projector.apply(try Self.allRecords())
            #expect(outcome.applied == 9)
            #expect(outcome.deadLettered == 0)

            let ls = try await pool.query(
                "SELECT status, app_user_id, customer_id, variant_id, renews_at IS NOT NULL FROM subscriptions WHERE provider = 'lemonsqueezy' AND subscription_id = '880123'"
            )
            let (lsStatus, lsUser, lsCustomer, _, lsRenews) = try #require(ls.first).decode((String, String?, String?, String?, Bool).self)
            #expect(lsStatus == "past_due")
            #expect(lsUser == "user-7f3a")
            #expect(lsCustomer == "6120345")
            #expect(lsRenews)

            let ps = try await pool.query(
                "SELECT status, customer_id, product_id, card_last_four, ends_at IS NOT NULL FROM subscriptions WHERE provider = 'paystack' AND subscription_id = 'SUB_vsyqdmlzble3uii'"
            )
            let (psStatus, psCustomer, psPlan, psCard, psEnded) = try #require(ps.first).decode((String, String?, String?, String?, Bool).self)
            #expect(psStatus != "active" && psStatus != "unknown")
            #expect(psCustomer == "CUS_xnxdt6s1zg1f4nx")
            #expect(psPlan == "PLN_gx2wn530m0i3w3m")
            #expect(psCard != nil, "the linked renewal charge's card reached the subscription")
            #expect(psEnded)

            let orders = try await pool.query("SELECT provider, order_id, status, amount FROM orders ORDER BY provider, order_id")
            let decoded = try orders.map { try $0.decode((String, String, String, Int64?).self) }
            #expect(decoded.map(\.0) == ["lemonsqueezy", "paystack"])
            #expect(decoded.map(\.2) == ["paid", "paid"])
            #expect(decoded[1].1 == "302961")
            #expect(try await Support.count(pool, "SELECT count(*) FROM payments") >= 2)
            #expect(try await Support.count(pool, "SELECT count(*) FROM provider_customers WHERE app_user_id = 'user-7f3a'") == 1)
        }
    }

    @Test func duplicatesAndAnyDeliveryOrderEndInIdenticalRows() async throws {
        let records = try Self.allRecords()
        try await Support.withDatabase { inOrder in
            try await Support.withDatabase { shuffled in
                _ = try await Support.projector(inOrder).apply(records)

                var generator = SystemRandomNumberGenerator()
                let redelivered = (records + records).shuffled(using: &generator)
                let projector = Support.projector(shuffled)
                var duplicates = 0
                // One record per batch, so every record meets a different prior state.
                for record in redelivered { duplicates += try await projector.apply([record]).duplicates }
                #expect(duplicates == records.count)
                // And once more as one batch holding each record twice.
                let again = try await projector.apply(records + records)
                #expect(again.applied == 0)
                #expect(again.duplicates == records.count * 2)

                let expected = try await Support.dump(inOrder)
                let actual = try await Support.dump(shuffled)
                for table in expected.keys.sorted() {
                    #expect(actual[table] == expected[table], "table \(table) differs")
                }
                #expect(expected["subscriptions"]?.count == 2)
            }
        }
    }

    @Test func anOlderEventAfterANewerOneDoesNotMoveStateBack() async throws {
        try await Support.withDatabase { pool in
            let projector = Support.projector(pool)
            let newer = try Support.webhookRecord(.lemonsqueezy, Support.body("lemonsqueezy.webhook.subscription_updated.synthetic.json"))
            let older = try Support.webhookRecord(.lemonsqueezy, Support.body("lemonsqueezy.webhook.subscription_created.synthetic.json"))
            _ = try await projector.apply([newer])
            _ = try await projector.apply([older])
            let status = try await pool.query("SELECT status, source_updated_at FROM subscriptions WHERE subscription_id = '880123'")
            let (value, updatedAt) = try #require(status.first).decode((String, Date?).self)
            #expect(value == "past_due")
            #expect(updatedAt == Timestamp.parse("2025-04-03T09:20:11Z"))
        }
    }

    @Test func undecodableRecordsAreDeadLetteredCountedAndDoNotBlock() async throws {
        try await Support.withDatabase { pool in
            let sink = RecordingSink()
            let metrics = MetricsRegistry()
            let projector = Support.projector(pool, sink: sink, metrics: metrics)
            let garbage = Support.record(Topics.webhooks, key: "lemonsqueezy:x", value: Array("not json".utf8), offset: 1)
            let badPayload = Support.record(
                Topics.webhooks, key: "paystack:unparsed",
                value: RecordCoding.encode(Support.envelope(.paystack, Array("[1,2]".utf8))), offset: 2)
            let badCheckout = Support.record(Topics.checkouts, key: "lemonsqueezy:u", value: Array(#"{"checkoutId":1}"#.utf8), offset: 3)
            let good = try Support.webhookRecord(.lemonsqueezy, Support.body("lemonsqueezy.webhook.subscription_created.synthetic.json"), offset: 4)
            let outcome = try await projector.apply([garbage, badPayload, badCheckout, good])
            #expect(outcome.deadLettered == 3)
            #expect(outcome.applied == 1)
            let letters = sink.received
            #expect(letters.map(\.sourceOffset) == [1, 2, 3])
            #expect(letters[0].reason.contains("undecodable webhook envelope"))
            #expect(letters[1].reason.contains("not understood"))
            #expect(letters[2].reason.contains("checkout"))
            #expect(letters[0].sourceValue.bytes == Array("not json".utf8))
            #expect(metrics.renderPrometheus().contains(#"projector_records_total{result="dead_lettered"} 3"#))
            #expect(try await Support.count(pool, "SELECT count(*) FROM subscriptions") == 1)
        }
    }

    @Test func aRecordTheDatabaseRejectsIsDeadLetteredAndTheRestApplied() async throws {
        try await Support.withDatabase { pool in
            let sink = RecordingSink()
            let projector = Support.projector(pool, sink: sink)
            var bad = Self.checkout(id: "has\u{0}nul")
            bad.appUserID = "someone"
            let poisoned = Support.record(Topics.checkouts, key: "k", value: try RecordCoding.encode(bad), offset: 7)
            let fine = Support.record(Topics.checkouts, key: "k", value: try RecordCoding.encode(Self.checkout(id: "ok-1")), offset: 8)
            let outcome = try await projector.apply([poisoned, fine])
            #expect(outcome.applied == 1)
            #expect(sink.received.map(\.sourceOffset) == [7])
            #expect(try await Support.count(pool, "SELECT count(*) FROM checkouts WHERE checkout_id = 'ok-1'") == 1)
        }
    }

    @Test func unknownEventKindsAreLoggedWithoutChangingState() async throws {
        try await Support.withDatabase { pool in
            let projector = Support.projector(pool)
            _ = try await projector.apply([
                try Support.webhookRecord(.lemonsqueezy, Support.body("lemonsqueezy.webhook.subscription_created.synthetic.json"))
            ])
            let before = try await Support.dump(pool)
            let unknown = try Support.body("lemonsqueezy.webhook.customer_updated.synthetic.json")
            let outcome = try await projector.apply([try Support.webhookRecord(.lemonsqueezy, unknown)])
            #expect(outcome.applied == 1 && outcome.deadLettered == 0)
            let after = try await Support.dump(pool)
            #expect(try await Support.count(pool, "SELECT count(*) FROM billing_events WHERE kind = 'unknown:customer_updated'") == 1)
            for table in before.keys.sorted() where table != "billing_events" {
                #expect(after[table] == before[table], "table \(table) changed")
            }
        }
    }

    @Test func aCheckoutThenItsPurchaseMarksTheCheckoutCompleted() async throws {
        try await Support.withDatabase { pool in
            let projector = Support.projector(pool)
            let checkout = Self.checkout()
            let other = Self.checkout(id: "other-checkout", user: "someone-else")
            _ = try await projector.apply([
                Support.record(Topics.checkouts, key: checkout.key, value: try RecordCoding.encode(checkout)),
                Support.record(Topics.checkouts, key: other.key, value: try RecordCoding.encode(other)),
            ])
            #expect(try await Support.count(pool, "SELECT count(*) FROM checkouts WHERE completed_at IS NOT NULL") == 0)
            _ = try await projector.apply([
                try Support.webhookRecord(.lemonsqueezy, Support.body("lemonsqueezy.webhook.subscription_created.synthetic.json"))
            ])
            let rows = try await pool.query("SELECT checkout_id, completed_at FROM checkouts WHERE completed_at IS NOT NULL")
            #expect(try rows.map { try $0.decode(column: 0, as: String.self) } == [checkout.checkoutID])
            #expect(try rows.first?.decode(column: 1, as: Date.self) == Timestamp.parse("2025-03-03T09:15:41Z"))

            // The other order: purchase first, checkout record later.
            try await Support.withDatabase { late in
                let lateProjector = Support.projector(late)
                _ = try await lateProjector.apply([
                    try Support.webhookRecord(.lemonsqueezy, Support.body("lemonsqueezy.webhook.subscription_created.synthetic.json"))
                ])
                _ = try await lateProjector.apply([Support.record(Topics.checkouts, key: checkout.key, value: try RecordCoding.encode(checkout))])
                #expect(try await Support.count(late, "SELECT count(*) FROM checkouts WHERE completed_at = '2025-03-03T09:15:41Z'") == 1)
            }
        }
    }

    @Test func commandsAreRecordedOnce() async throws {
        try await Support.withDatabase { pool in
            let command = SubscriptionCommand(
                commandID: "cmd-1", kind: .cancelRequested, provider: .paystack, subscriptionID: "SUB_1",
                appUserID: "u", requestedAt: Date(timeIntervalSince1970: 1_800_000_000))
            let record = Support.record(Topics.commands, key: command.key, value: try RecordCoding.encode(command))
            let first = try await Support.projector(pool).apply([record])
            let second = try await Support.projector(pool).apply([record])
            #expect(first.applied == 1 && second.duplicates == 1)
            #expect(try await Support.count(pool, "SELECT count(*) FROM commands") == 1)
        }
    }

    /// Migration 14: a logged body large enough to be compressed is stored
    /// with lz4 and reads back byte for byte.
    @Test func theLogCompressesLargeBodiesWithLZ4() async throws {
        try await Support.withDatabase { pool in
            var body = try Support.body("lemonsqueezy.webhook.subscription_created.synthetic.json")
            // JSON whitespace: the same event, now well over PostgreSQL's 2 KB TOAST threshold.
            body.insert(contentsOf: [UInt8](repeating: 0x20, count: 8_000), at: body.count - 1)
            let outcome = try await Support.projector(pool).apply([try Support.webhookRecord(.lemonsqueezy, body)])
            #expect(outcome.applied == 1)
            let rows = try await pool.query("SELECT pg_column_compression(payload), payload FROM billing_events")
            let (method, stored) = try #require(rows.first).decode((String?, [UInt8]).self)
            #expect(method == "lz4")
            #expect(stored == body)
        }
    }

    @Test func migrationsAppliedTwiceConcurrentlyAreSafe() async throws {
        try await Support.withDatabase(migrate: false) { pool in
            async let a = ProjectionSchema.migrate(pool: pool)
            async let b = ProjectionSchema.migrate(pool: pool)
            let (first, second) = try await (a, b)
            #expect((first + second).sorted() == ProjectionSchema.migrations.map(\.version))
            #expect(try await ProjectionSchema.migrate(pool: pool).isEmpty)
            #expect(try await Support.count(pool, "SELECT count(*) FROM schema_migrations") == ProjectionSchema.migrations.count)
        }
    }
}
