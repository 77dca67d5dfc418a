import Foundation
import Models
import Testing
@testable import Projection

@Suite struct EntitlementResolverTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)
    static let policy = AccessPolicy(testDeployment: true)

    static func subscription(_ id: String, product: String, status: String, provider: Provider = .lemonsqueezy) -> SubscriptionState {
        var s = SubscriptionState(provider: provider, subscriptionID: id)
        s.productID = product
        s.variantID = product + "0"
        s.status = status
        s.renewsAt = now.addingTimeInterval(86_400)
        s.originalPurchaseAt = now.addingTimeInterval(-86_400)
        return s
    }

    static func order(_ id: String, product: String, subscriptionID: String? = nil) -> ProjectedOrder {
        var o = ProjectedOrder(provider: .lemonsqueezy, orderID: id, status: "paid")
        o.productID = product
        o.variantID = product + "0"
        o.paidAt = now.addingTimeInterval(-86_400)
        o.subscriptionID = subscriptionID
        return o
    }

    @Test func withoutAFileEachProductIsItsOwnEntitlement() {
        let resolver = EntitlementResolver(policy: Self.policy)
        let list = resolver.entitlements(
            subscriptions: [Self.subscription("1", product: "2", status: "active")],
            orders: [Self.order("9", product: "5")], at: Self.now)
        #expect(list.map(\.identifier) == ["ls_2", "ls_5"])
        #expect(list[0].source == .subscription && list[0].willRenew && list[0].productID == "ls_2")
        #expect(list[1].source == .purchase && list[1].expiresAt == nil && list[1].isActive)
    }

    @Test func aSubscriptionsFirstOrderIsNeverALifetimePurchase() {
        let resolver = EntitlementResolver(policy: Self.policy)
        let expired = Self.subscription("1", product: "2", status: "expired")
        let list = resolver.entitlements(subscriptions: [expired], orders: [Self.order("9", product: "2", subscriptionID: "1")], at: Self.now)
        #expect(list.map(\.identifier) == ["ls_2"])
        #expect(list.allSatisfy { !$0.isActive && $0.source == .subscription })
    }

    @Test func theFileMapsProductsOfBothProvidersToOneEntitlement() throws {
        let configuration = try EntitlementsConfiguration.parse(
            Array(
                """
                {"entitlements": {"premium": {"lemonsqueezy": {"products": ["2"]}, "paystack": {"plans": ["PLN_p"]}},
                                  "icons": {"lemonsqueezy": {"variants": ["50"]}, "one_time": {"duration_days": 30}}}}
                """.utf8))
        let resolver = EntitlementResolver(configuration: configuration, policy: Self.policy)
        let lapsed = Self.subscription("1", product: "2", status: "expired")
        let paystack = Self.subscription("SUB_1", product: "PLN_p", status: "active", provider: .paystack)
        let list = resolver.entitlements(subscriptions: [lapsed, paystack], orders: [Self.order("9", product: "5")], at: Self.now)
        #expect(list.map(\.identifier) == ["icons", "premium"], "both active, so by identifier")
        let premium = try #require(list.first { $0.identifier == "premium" })
        #expect(premium.isActive && premium.provider == .paystack, "the active purchase wins over the lapsed one")
        let icons = try #require(list.first { $0.identifier == "icons" })
        #expect(icons.isActive && icons.expiresAt == Self.now.addingTimeInterval(29 * 86_400))
        let withLapsedOnly = resolver.entitlements(subscriptions: [lapsed], orders: [Self.order("9", product: "5")], at: Self.now)
        #expect(withLapsedOnly.map(\.identifier) == ["icons", "premium"] && withLapsedOnly.map(\.isActive) == [true, false])
        let lapsedIcons = resolver.entitlements(
            subscriptions: [Self.subscription("1", product: "2", status: "active")],
            orders: [], at: Self.now)
        #expect(lapsedIcons.map(\.identifier) == ["premium"])
    }

    @Test func unmappedProductsGrantNothingWhenAFileIsConfigured() throws {
        let configuration = try EntitlementsConfiguration.parse(Array(#"{"entitlements": {"premium": {"paystack": {"plans": ["PLN_p"]}}}}"#.utf8))
        let resolver = EntitlementResolver(configuration: configuration, policy: Self.policy)
        #expect(resolver.entitlements(subscriptions: [Self.subscription("1", product: "2", status: "active")], orders: [], at: Self.now).isEmpty)
    }
}
