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
        // No catalog to ask: product_id is the fallback, `<product>.<variant>` (see productIDNamesTheCatalogEntryBought).
        #expect(list[0].source == .subscription && list[0].willRenew && list[0].productID == "ls_2.20")
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

    // MARK: - product_id: the catalog entry that was bought

    /// A catalog as the checkout's cache knows it.
    final class FakeCatalog: CatalogEntryIDSource {
        let ids: CatalogEntryIDs
        init(_ items: [CatalogItem]) { ids = CatalogEntryIDs(items) }
        func catalogEntryID(provider: Provider, productID: String, variantID: String) -> CatalogID? {
            ids.id(provider: provider, productID: productID, variantID: variantID)
        }
    }

    static func item(
        _ provider: Provider = .lemonsqueezy, product: String, variant: String, interval: BillingInterval? = BillingInterval(unit: .month)
    ) -> CatalogItem {
        CatalogItem(
            provider: provider, productID: product, variantID: variant, name: "\(product).\(variant)", price: 500, currency: "USD", interval: interval
        )
    }

    /// "Premium" (product 2) has two variants, monthly (3) and yearly (4), so the
    /// catalog lists `ls_2.3` and `ls_2.4`; "Icons" (product 5) has one, listed as `ls_5`.
    static let catalog = FakeCatalog([
        item(product: "2", variant: "3"), item(product: "2", variant: "4"), item(product: "5", variant: "50", interval: nil),
        item(.paystack, product: "PLN_p", variant: "PLN_p"),
    ])

    static func purchase(product: String, variant: String, provider: Provider = .lemonsqueezy) -> SubscriptionState {
        var s = subscription("sub-\(variant)", product: product, status: "active", provider: provider)
        s.variantID = variant
        return s
    }

    @Test func productIDNamesTheCatalogEntryBought() {
        var resolver = EntitlementResolver(policy: Self.policy)
        resolver.productIDs = PurchasedProductIDs(catalog: Self.catalog)
        let yearly = resolver.entitlements(subscriptions: [Self.purchase(product: "2", variant: "4")], orders: [], at: Self.now)
        // The entitlement is the product's (no file); the product id is the entry bought, never the monthly one's.
        #expect(yearly.map(\.identifier) == ["ls_2"] && yearly.map(\.productID) == ["ls_2.4"])
        let monthly = resolver.entitlements(subscriptions: [Self.purchase(product: "2", variant: "3")], orders: [], at: Self.now)
        #expect(monthly.map(\.productID) == ["ls_2.3"])

        var icons = Self.order("9", product: "5")
        icons.variantID = "50"
        let single = resolver.entitlements(subscriptions: [], orders: [icons], at: Self.now)
        #expect(single.map(\.productID) == ["ls_5"], "a single-variant product is listed under the product's id")

        let paystack = resolver.entitlements(
            subscriptions: [Self.purchase(product: "PLN_p", variant: "PLN_p", provider: .paystack)], orders: [], at: Self.now)
        #expect(paystack.map(\.productID) == ["ps_PLN_p"])
    }

    /// Not in the catalog (not loaded yet, or removed since), or no catalog at
    /// all: `<product>.<variant>`, which can never be another entry's id.
    @Test func aPurchaseTheCatalogDoesNotKnowGetsTheFallbackID() {
        let removed = Self.purchase(product: "7", variant: "70")
        let unknownVariant = Self.purchase(product: "2", variant: "99")
        for catalog in [Self.catalog, FakeCatalog([])] as [any CatalogEntryIDSource] {
            var resolver = EntitlementResolver(policy: Self.policy)
            resolver.productIDs = PurchasedProductIDs(catalog: catalog)
            #expect(resolver.entitlements(subscriptions: [removed], orders: [], at: Self.now).map(\.productID) == ["ls_7.70"])
            #expect(resolver.entitlements(subscriptions: [unknownVariant], orders: [], at: Self.now).map(\.productID) == ["ls_2.99"])
        }
        let noCatalog = EntitlementResolver(policy: Self.policy)
        #expect(
            noCatalog.entitlements(subscriptions: [Self.purchase(product: "5", variant: "50")], orders: [], at: Self.now).map(\.productID) == [
                "ls_5.50"
            ])
        #expect(
            noCatalog.entitlements(subscriptions: [Self.purchase(product: "PLN_p", variant: "PLN_p", provider: .paystack)], orders: [], at: Self.now)
                .map(\.productID) == ["ps_PLN_p"], "product and variant are one plan code")
        // Only one of the two ids known: that one.
        #expect(PurchasedProductIDs().id(.lemonsqueezy, "5", nil) == "ls_5")
        #expect(PurchasedProductIDs().id(.lemonsqueezy, nil, "50") == "ls_50")
        #expect(PurchasedProductIDs().id(.lemonsqueezy, nil, nil) == nil)
        #expect(PurchasedProductIDs(catalog: Self.catalog).id(.lemonsqueezy, "2", nil) == "ls_2")
    }

    @Test func resolversAskingTheSameCatalogAreEqual() {
        let plain = EntitlementResolver(policy: Self.policy)
        var a = plain, b = plain, c = plain
        a.productIDs = PurchasedProductIDs(catalog: Self.catalog)
        b.productIDs = PurchasedProductIDs(catalog: Self.catalog)
        c.productIDs = PurchasedProductIDs(catalog: FakeCatalog([]))
        #expect(a == b && a.hashValue == b.hashValue)
        #expect(a != c && a != plain && plain == EntitlementResolver(policy: Self.policy))
    }
}
