import BillingModel
import Foundation
import Testing

@testable import Entitlements

/// Promotional grants in the entitlement answer: shown beside purchases,
/// `store: promotional`, active from their start until their end or revocation.
@Suite struct PromotionalGrantTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let resolver = EntitlementResolver(policy: AccessPolicy(testDeployment: false))

    static func grant(_ id: String = "grant_1", _ entitlement: String = "ls_2", days: Double = 30, revokedAt: Date? = nil) -> ProjectedGrant {
        ProjectedGrant(
            grantID: id, appUserID: "u", entitlement: entitlement, startsAt: now.addingTimeInterval(-86_400),
            expiresAt: now.addingTimeInterval(days * 86_400), revokedAt: revokedAt)
    }

    @Test func aGrantUnlocksAUserWithNoPurchase() throws {
        let list = Self.resolver.entitlements(subscriptions: [], orders: [], promotional: [Self.grant()], at: Self.now)
        let info = try #require(list.first)
        #expect(list.count == 1 && info.isActive && info.identifier == "ls_2" && info.source == .grant)
        #expect(info.provider == nil && info.store == "promotional" && info.grantID == "grant_1" && !info.willRenew)
        #expect(info.expiresAt == Self.now.addingTimeInterval(30 * 86_400))
    }

    @Test func aGrantEndsAtItsEndOrWhenRevoked() {
        let ended = Self.grant(days: -0.5)
        let revoked = Self.grant(revokedAt: Self.now.addingTimeInterval(-60))
        for grant in [ended, revoked] {
            let info = Self.resolver.entitlements(subscriptions: [], orders: [], promotional: [grant], at: Self.now).first
            #expect(info?.isActive == false && info?.expiresAt == grant.endsAt, "\(grant)")
        }
        // Not started yet: not active.
        var later = Self.grant()
        later.startsAt = Self.now.addingTimeInterval(60)
        #expect(Self.resolver.entitlements(subscriptions: [], orders: [], promotional: [later], at: Self.now).first?.isActive == false)
    }

    @Test func aGrantAndAPurchaseOfOneEntitlementCompeteByAccessAndEnd() {
        var subscription = SubscriptionState(provider: .lemonsqueezy, subscriptionID: "1")
        subscription.productID = "2"
        subscription.status = "active"
        subscription.renewsAt = Self.now.addingTimeInterval(10 * 86_400)
        let longer = Self.resolver.entitlements(subscriptions: [subscription], orders: [], promotional: [Self.grant()], at: Self.now)
        #expect(longer.count == 1 && longer.first?.source == .grant, "a 30-day grant outlasts a renewal in 10 days")
        let shorter = Self.resolver.entitlements(subscriptions: [subscription], orders: [], promotional: [Self.grant(days: 5)], at: Self.now)
        #expect(shorter.first?.source == .subscription && shorter.first?.provider == .lemonsqueezy)
        // A revoked grant never hides the paid access.
        let revoked = Self.resolver.entitlements(
            subscriptions: [subscription], orders: [], promotional: [Self.grant(revokedAt: Self.now)], at: Self.now)
        #expect(revoked.first?.source == .subscription && revoked.first?.isActive == true)
    }
}
