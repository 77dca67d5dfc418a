import Foundation
import BillingModel
import Kafka
import Postgres
import ProjectionStore
import ProjectorService
import Testing

/// A Lemon Squeezy subscription's first payment also arrives as an
/// `order_created`, under another topic key than the subscription, so the
/// projector may see the order first. When the order's checkout sold a
/// subscription, the order grants nothing on its own: the user's access
/// starts with the subscription, with its end, and never as a purchase
/// without one. A checkout that sold a one-time variant still grants by its order.
@Suite struct SubscriptionFirstOrderTests {
    static let user = "user-7f3a", checkoutID = "2d9c6a40-5b1e-4f7a-9c3d-8e2f1a0b4c6d"

    /// The subscription fixture's first order: its id, product, variant, test
    /// mode and the buyer's proven custom data.
    static func firstOrder() throws -> [UInt8] {
        let subscription = try #require(
            try JSONSerialization.jsonObject(with: Data(Support.body("lemonsqueezy.webhook.subscription_created.synthetic.json")))
                as? [String: Any])
        var order = try #require(
            try JSONSerialization.jsonObject(with: Data(Support.body("lemonsqueezy.webhook.order_created.with_custom_data.json")))
                as? [String: Any])
        let attributes = try #require((subscription["data"] as? [String: Any])?["attributes"] as? [String: Any])
        var meta = try #require(order["meta"] as? [String: Any])
        meta["custom_data"] = (subscription["meta"] as? [String: Any])?["custom_data"]
        order["meta"] = meta
        var data = try #require(order["data"] as? [String: Any])
        data["id"] = "\(try #require(attributes["order_id"]))"
        var orderAttributes = try #require(data["attributes"] as? [String: Any])
        var item = try #require(orderAttributes["first_order_item"] as? [String: Any])
        item["variant_id"] = attributes["variant_id"]
        item["product_id"] = attributes["product_id"]
        // A test purchase, like the subscription (a test deployment grants no live purchase).
        item["test_mode"] = true
        orderAttributes["test_mode"] = true
        orderAttributes["first_order_item"] = item
        data["attributes"] = orderAttributes
        order["data"] = data
        return Array(try JSONSerialization.data(withJSONObject: order))
    }

    /// The checkout that opened the purchase, for the subscription's variant.
    static func checkout(isSubscription: Bool) throws -> KafkaConsumerRecord {
        var record = ProjectorApplyTests.checkout(id: checkoutID, user: user)
        record.variantID = try #require(CatalogID(provider: .lemonsqueezy, rawID: "472301"))
        record.isSubscription = isSubscription
        return Support.record(Topics.checkouts, key: record.key, value: try RecordCoding.encode(record))
    }

    static func entitlements(_ pool: PostgresPool) async throws -> [EntitlementInfo] {
        let reader = SubscriptionStatusReader(pool: pool, resolver: MoneyBackTests.resolver)
        return try await reader.snapshot(for: ProjectionUser(appUserID: user, verifiedEmail: nil), at: Timestamp.parse("2025-03-10T00:00:00Z")!)
            .entitlements
    }

    @Test func theOrderOfASubscriptionCheckoutWaitsForItsSubscription() async throws {
        try await Support.withDatabase { pool in
            let projector = Support.projector(pool)
            _ = try await projector.apply([
                try Self.checkout(isSubscription: true),
                try Support.webhookRecord(.lemonsqueezy, try Self.firstOrder(), offset: 1),
            ])
            #expect(try await Self.entitlements(pool).filter(\.isActive).isEmpty, "no grant without an end before the subscription")

            _ = try await projector.apply([
                try Support.webhookRecord(.lemonsqueezy, try Support.body("lemonsqueezy.webhook.subscription_created.synthetic.json"), offset: 2)
            ])
            let granted = try await Self.entitlements(pool).filter(\.isActive)
            #expect(!granted.isEmpty && granted.allSatisfy { $0.expiresAt != nil && $0.source == .subscription }, "\(granted)")
        }
    }

    @Test func theOrderOfAOneTimeCheckoutStillGrants() async throws {
        try await Support.withDatabase { pool in
            let projector = Support.projector(pool)
            _ = try await projector.apply([
                try Self.checkout(isSubscription: false),
                try Support.webhookRecord(.lemonsqueezy, try Self.firstOrder(), offset: 1),
            ])
            let granted = try await Self.entitlements(pool).filter(\.isActive)
            #expect(!granted.isEmpty && granted.allSatisfy { $0.source == .purchase }, "\(granted)")
        }
    }

    /// The first order, refunded in full (`order_refunded` restates the order with its running `refunded_amount`).
    static func firstOrderRefunded() throws -> [UInt8] {
        var order = try #require(try JSONSerialization.jsonObject(with: Data(try Self.firstOrder())) as? [String: Any])
        var meta = try #require(order["meta"] as? [String: Any])
        meta["event_name"] = "order_refunded"
        order["meta"] = meta
        var data = try #require(order["data"] as? [String: Any])
        var attributes = try #require(data["attributes"] as? [String: Any])
        attributes["status"] = "refunded"
        attributes["refunded"] = true
        attributes["refunded_amount"] = attributes["total"]
        data["attributes"] = attributes
        order["data"] = data
        return Array(try JSONSerialization.data(withJSONObject: order))
    }

    /// The subscription fixture as `event` sent at `updatedAt`, naming `orderID` as its order.
    static func subscription(event: String, orderID: Int, updatedAt: String) throws -> [UInt8] {
        var body = try #require(
            try JSONSerialization.jsonObject(with: Data(Support.body("lemonsqueezy.webhook.subscription_created.synthetic.json"))) as? [String: Any])
        var meta = try #require(body["meta"] as? [String: Any])
        meta["event_name"] = event
        meta["webhook_id"] = UUID().uuidString.lowercased()
        body["meta"] = meta
        var data = try #require(body["data"] as? [String: Any])
        var attributes = try #require(data["attributes"] as? [String: Any])
        attributes["order_id"] = orderID
        attributes["updated_at"] = updatedAt
        data["attributes"] = attributes
        body["data"] = data
        return Array(try JSONSerialization.data(withJSONObject: body))
    }

    /// A refund of a payment of a subscription already projected, logged
    /// before any event linked that payment to the subscription (a Stripe
    /// renewal's refund names only its PaymentIntent, which only the
    /// reconciler's fetch of the invoice links), takes effect when the link
    /// arrives: the subscription is folded again from its log.
    @Test func aRefundLoggedBeforeItsPaymentWasLinkedRevokesWhenTheLinkArrives() async throws {
        try await Support.withDatabase { pool in
            let projector = Support.projector(pool)
            _ = try await projector.apply([
                try Self.checkout(isSubscription: true),
                try Support.webhookRecord(
                    .lemonsqueezy, try Self.subscription(event: "subscription_created", orderID: 1, updatedAt: "2025-03-03T09:15:41.000000Z"),
                    offset: 1),
            ])
            #expect(try await Self.entitlements(pool).contains(where: \.isActive), "the subscription grants")
            _ = try await projector.apply([try Support.webhookRecord(.lemonsqueezy, try Self.firstOrderRefunded(), offset: 2)])
            _ = try await projector.apply([
                try Support.webhookRecord(
                    .lemonsqueezy, try Self.subscription(event: "subscription_updated", orderID: 4_451_290, updatedAt: "2025-03-03T09:20:00.000000Z"),
                    offset: 3)
            ])
            let refunded = try await Support.count(pool, "SELECT count(*) FROM subscriptions WHERE refunded_at IS NOT NULL")
            #expect(refunded == 1, "the subscription's fold took the refund in once its payment was linked")
            #expect(!(try await Self.entitlements(pool).contains(where: \.isActive)), "the refunded subscription grants nothing")
        }
    }
}
