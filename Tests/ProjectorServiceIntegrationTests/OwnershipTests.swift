import Foundation
import Kafka
import BillingModel
import Postgres
import ProjectionStore
import Entitlements
import ProjectorService
import TestSupport
import Testing
import Webhooks

/// Who owns a purchase, through the projector's real write path and
/// PostgreSQL: the checkout's app user, for good, whatever customers and
/// emails say and in whatever order the events arrive.
@Suite struct OwnershipTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let policy = EntitlementResolver(policy: AccessPolicy(testDeployment: true))

    // MARK: - Paystack bodies in the provider's real shape

    static func paystackCharge(
        user: String?, customer: String, email: String, plan: String, authorization: String, id: Int, at offset: TimeInterval
    ) -> [UInt8] {
        let metadata = user.map { TestOwnership.customDataJSON(appUserID: $0, checkoutID: "chk-\(id)") } ?? "null"
        return Array(
            """
            {"event":"charge.success","data":{"id":\(id),"domain":"test","status":"success","reference":"ref-\(id)","amount":500000,
            "currency":"NGN","paid_at":"\(Timestamp.format(t0.addingTimeInterval(offset)))","metadata":\(metadata),
            "customer":{"customer_code":"\(customer)","email":"\(email)"},
            "authorization":{"authorization_code":"\(authorization)","last4":"4081","brand":"visa","reusable":true},
            "plan":{"plan_code":"\(plan)","name":"Premium Monthly","interval":"monthly"}}}
            """.utf8)
    }

    static func paystackSubscription(
        _ event: String, code: String, customer: String, email: String, plan: String, authorization: String,
        status: String
    ) -> [UInt8] {
        Array(
            """
            {"event":"\(event)","data":{"domain":"test","status":"\(status)","subscription_code":"\(code)","email_token":"tok-\(code)",
            "amount":500000,"next_payment_date":"\(Timestamp.format(t0.addingTimeInterval(30 * 86_400)))",
            "createdAt":"\(Timestamp.format(t0))","plan":{"plan_code":"\(plan)","name":"Premium Monthly"},
            "customer":{"customer_code":"\(customer)","email":"\(email)"},
            "authorization":{"authorization_code":"\(authorization)","last4":"4081","brand":"visa"}}}
            """.utf8)
    }

    static func record(_ provider: Provider, _ body: [UInt8], receivedAt offset: TimeInterval) throws -> KafkaConsumerRecord {
        Support.record(
            Topics.webhooks, key: ProviderWebhooks.read(provider, body: body, receivedAt: .distantPast).topicKey,
            value: RecordCoding.encode(Support.envelope(provider, body, receivedAt: t0.addingTimeInterval(offset))))
    }

    static func owners(_ pool: PostgresPool) async throws -> [String: String] {
        var result: [String: String] = [:]
        for row in try await pool.query("SELECT purchase_type || ':' || purchase_id, app_user_id FROM purchase_owners") {
            let (key, user) = try row.decode((String, String).self)
            result[key] = user
        }
        return result
    }

    /// B buys the plan; then A, whose token has no email, checks out with B's
    /// email for the same plan and pays. Paystack keys customers by email, so
    /// both purchases share B's customer.
    static func paystackTakeover() throws -> [KafkaConsumerRecord] {
        let customer = "CUS_shared1", email = "b@example.com", plan = "PLN_premium1"
        return [
            try record(
                .paystack, paystackCharge(user: "user-b", customer: customer, email: email, plan: plan, authorization: "AUTH_b1", id: 1001, at: 0),
                receivedAt: 1),
            try record(
                .paystack,
                paystackSubscription(
                    "subscription.create", code: "SUB_b", customer: customer, email: email, plan: plan,
                    authorization: "AUTH_b1", status: "active"), receivedAt: 2),
            try record(
                .paystack, paystackCharge(user: "user-a", customer: customer, email: email, plan: plan, authorization: "AUTH_a1", id: 1002, at: 600),
                receivedAt: 601),
            try record(
                .paystack,
                paystackSubscription(
                    "subscription.create", code: "SUB_a", customer: customer, email: email, plan: plan,
                    authorization: "AUTH_a1", status: "active"), receivedAt: 602),
        ]
    }

    @Test(arguments: [[0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2], [2, 0, 3, 1], [1, 0, 3, 2]])
    func aSharedPaystackCustomerNeverMovesAPurchaseBetweenUsers(order: [Int]) async throws {
        try await Support.withDatabase { pool in
            let projector = Support.projector(pool)
            let records = try Self.paystackTakeover()
            for index in order { _ = try await projector.apply([records[index]]) }

            #expect(try await Self.owners(pool) == ["subscription:SUB_b": "user-b", "subscription:SUB_a": "user-a"])
            let reader = SubscriptionStatusReader(pool: pool, resolver: Self.policy)
            let now = Self.t0.addingTimeInterval(3600)
            let b = try await reader.snapshot(for: ProjectionUser(appUserID: "user-b", verifiedEmail: "b@example.com"), at: now)
            #expect(b.subscriptions.map(\.subscriptionID) == ["SUB_b"])
            let a = try await reader.snapshot(for: ProjectionUser(appUserID: "user-a", verifiedEmail: nil), at: now)
            #expect(a.subscriptions.map(\.subscriptionID) == ["SUB_a"])
            #expect(
                try await reader.ownedSubscription(code: "SUB_b", for: ProjectionUser(appUserID: "user-a", verifiedEmail: nil), at: now) == nil,
                "A cannot act on B's subscription")
        }
    }

    @Test func aLemonSqueezyCheckoutWithAnotherUsersEmailBuysOnlyForItsOwnUser() async throws {
        try await Support.withDatabase { pool in
            let projector = Support.projector(pool)
            func subscription(_ id: String, user: String, at offset: TimeInterval) throws -> KafkaConsumerRecord {
                let body = try Support.body(
                    "lemonsqueezy.webhook.subscription_created.synthetic.json",
                    replacing: ["\"880123\"": "\"\(id)\"", "7c1f3a52": String(id.suffix(8))], owner: (user, "chk-\(id)"))
                return try Self.record(.lemonsqueezy, body, receivedAt: offset)
            }
            _ = try await projector.apply([try subscription("900001", user: "user-b", at: 0)])
            // A's later purchase has the same customer and email (LS keys customers by email) but A's custom data.
            _ = try await projector.apply([try subscription("900002", user: "user-a", at: 60)])
            #expect(try await Self.owners(pool) == ["subscription:900001": "user-b", "subscription:900002": "user-a"])
        }
    }

    @Test func anEmailClaimLinksAnUnownedPurchaseForGoodAndIsAudited() async throws {
        try await Support.withDatabase { pool in
            let projector = Support.projector(pool)
            // Bought from a dashboard link: no storefront metadata anywhere.
            let customer = "CUS_dash1", email = "dash@example.com", plan = "PLN_premium1"
            _ = try await projector.apply([
                try Self.record(
                    .paystack,
                    Self.paystackCharge(user: nil, customer: customer, email: email, plan: plan, authorization: "AUTH_d1", id: 2001, at: 0),
                    receivedAt: 1),
                try Self.record(
                    .paystack,
                    Self.paystackSubscription(
                        "subscription.create", code: "SUB_dash", customer: customer, email: email, plan: plan,
                        authorization: "AUTH_d1", status: "active"), receivedAt: 2),
            ])
            #expect(try await Self.owners(pool).isEmpty)

            func claim(_ user: String) throws -> KafkaConsumerRecord {
                var command = SubscriptionCommand(
                    commandID: UUID().uuidString.lowercased(), kind: .claimByEmail, provider: .paystack,
                    subscriptionID: "SUB_dash", appUserID: user, requestedAt: Self.t0.addingTimeInterval(3600))
                command.purchaseType = .subscription
                return Support.record(Topics.commands, key: command.key, value: try RecordCoding.encode(command))
            }
            _ = try await projector.apply([try claim("user-first")])
            _ = try await projector.apply([try claim("user-second")])
            #expect(try await Self.owners(pool) == ["subscription:SUB_dash": "user-first"])
            let source = try await pool.query("SELECT source, evidence LIKE 'command:%' FROM purchase_owners")
            #expect(try source.map { try $0.decode((String, Bool).self) }.first! == ("email", true))
            let row = try await pool.query("SELECT app_user_id FROM subscriptions WHERE subscription_id = 'SUB_dash'")
            let first = try #require(row.first)
            let claimed = try first.decode(String?.self)
            #expect(claimed == "user-first")

            // A later event of the same subscription keeps the claimed owner.
            _ = try await projector.apply([
                try Self.record(
                    .paystack,
                    Self.paystackSubscription(
                        "subscription.not_renew", code: "SUB_dash", customer: customer, email: email, plan: plan, authorization: "AUTH_d1",
                        status: "non-renewing"),
                    receivedAt: 7200)
            ])
            let after = try await pool.query("SELECT app_user_id, status FROM subscriptions WHERE subscription_id = 'SUB_dash'")
            let last = try #require(after.first)
            let (owner, status) = try last.decode((String?, String).self)
            #expect(owner == "user-first" && status == "non-renewing")
        }
    }
}
