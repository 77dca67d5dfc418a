import Foundation
import BillingModel
import Testing
@testable import ProjectionStore
@testable import Entitlements

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

    // MARK: - Access is time-bounded, whatever the state

    /// SplitMix64: the same sweep on every run.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Every status of both providers (and ones no rule knows), every date
    /// field unset or anywhere from years ago to a year ahead (the edges of
    /// each grace included), refunds, modes and pauses, several graces, one
    /// to three subscriptions and up to two orders competing for the same
    /// entitlements: an active entitlement never has an end further back
    /// than the renewal grace, and a one-time purchase's is never past.
    @Test func isActiveImpliesNoEndOrAnEndWithinTheRenewalGraceAcrossASweepOfStatesAndTimes() throws {
        // "2" is a subscription product; a one-time purchase of "3" lasts a while or for life.
        let configurations = try ["{\"lifetime\": true}", "{\"duration_days\": 1}", "{\"duration_days\": 30}", "{\"duration_days\": 365}"].map {
            try EntitlementsConfiguration.parse(
                Array(
                    #"{"entitlements": {"premium": {"lemonsqueezy": {"products": ["2"]}}, "icons": {"lemonsqueezy": {"products": ["3"]}, "one_time": \#($0)}}}"#
                        .utf8))
        }
        var random = Generator(state: 20_260_501)
        let day: TimeInterval = 86_400
        let statuses: [(Provider, String)] =
            ["on_trial", "active", "past_due", "unpaid", "cancelled", "paused", "expired", "something_new"].map { (.lemonsqueezy, $0) }
            + ["active", "non-renewing", "attention", "complete", "completed", "cancelled", "something_new"].map { (.paystack, $0) }
        let graces: [TimeInterval] = [0, 3600, 7 * day, AccessPolicy.defaultRenewalGrace, 30 * day]
        var checked = 0
        var active = 0
        var activeInGrace = 0
        for _ in 0..<20_000 {
            let now = Date(timeIntervalSince1970: Double.random(in: 1_600_000_000...2_000_000_000, using: &random))
            let policy = AccessPolicy(
                unpaidGrace: graces.randomElement(using: &random)!, attentionGrace: graces.randomElement(using: &random)!,
                renewalGrace: graces.randomElement(using: &random)!, testDeployment: Bool.random(using: &random))
            let offsets: [TimeInterval] = [
                -3 * 365 * day, -policy.renewalGrace - day, -policy.renewalGrace - 1, -policy.renewalGrace,
                -policy.renewalGrace + 1, -policy.unpaidGrace, -policy.attentionGrace, -day, -1, 0, 1, day, 400 * day,
            ]
            func date() -> Date? {
                Int.random(in: 0..<5, using: &random) == 0
                    ? nil : now.addingTimeInterval(offsets.randomElement(using: &random)! + Double.random(in: -2...2, using: &random))
            }
            let subscriptions = (0..<Int.random(in: 1...3, using: &random)).map { index in
                let (provider, status) = statuses.randomElement(using: &random)!
                var s = SubscriptionState(provider: provider, subscriptionID: "s\(index)")
                s.productID = ["2", "3"].randomElement(using: &random)!
                s.status = status
                s.renewsAt = date()
                s.endsAt = date()
                s.trialEndsAt = date()
                s.pauseResumesAt = date()
                s.billingIssueDetectedAt = date()
                s.sourceUpdatedAt = date()
                s.cancelAtPeriodEnd = Bool.random(using: &random)
                s.pauseMode = [nil, "free", "void"].randomElement(using: &random)!
                s.testMode = [nil, true, false].randomElement(using: &random)!
                s.refundedAt = Int.random(in: 0..<8, using: &random) == 0 ? date() : nil
                return s
            }
            let orders = (0..<Int.random(in: 0...2, using: &random)).map { index in
                var o = ProjectedOrder(
                    provider: .lemonsqueezy, orderID: "o\(index)", status: ["paid", "paid", "refunded"].randomElement(using: &random)!)
                o.productID = ["2", "3"].randomElement(using: &random)!
                o.paidAt = date()
                o.testMode = [nil, true, false].randomElement(using: &random)!
                return o
            }
            let configuration = configurations.randomElement(using: &random)!
            for resolver in [EntitlementResolver(policy: policy), EntitlementResolver(configuration: configuration, policy: policy)] {
                for e in resolver.entitlements(subscriptions: subscriptions, orders: orders, at: now) {
                    checked += 1
                    #expect(!e.willRenew || e.isActive, "will_renew without access: \(e)")
                    guard e.isActive else { continue }
                    active += 1
                    guard let end = e.expiresAt else { continue }
                    if end <= now { activeInGrace += 1 }
                    switch e.source {
                    case .subscription:
                        #expect(end.addingTimeInterval(policy.renewalGrace) > now, "active past the renewal grace: \(e) at \(now), \(subscriptions)")
                    case .purchase, .grant:
                        #expect(end > now, "a one-time purchase or grant active past its end: \(e) at \(now)")
                    }
                }
            }
        }
        // The sweep reached the cases it is about.
        #expect(checked > 40_000 && active > 5_000 && activeInGrace > 500, "checked \(checked), active \(active), in grace \(activeInGrace)")
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
