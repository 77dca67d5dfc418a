import BillingModel
import Entitlements
import Foundation
import ProjectionStore
import Providers
import Testing

@testable import CheckoutService

/// What a server key is told, by scope: an `entitlements:read` answer holds
/// no URL and no token that can act on a subscription, whatever the
/// projection holds; `subscriptions:manage` gets them. Built from a snapshot
/// with every capability the projection keeps filled in (Lemon Squeezy's
/// portal and update-payment links, Paystack's email token and authorization
/// code, a pending checkout), rendered as the route renders it.
@Suite struct ServerAnswerScopeTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let portal = "https://shop.lemonsqueezy.com/billing?expires=1800080000&signature=portal-signature"
    static let updatePayment = "https://shop.lemonsqueezy.com/subscription/5001/payment-details?signature=update-signature"
    static let emailToken = "tok_paystack_email_0123"
    static let authorizationCode = "AUTH_paystack_card_0123"
    static let checkoutURL = "https://checkout.paystack.com/pending-checkout-0123"
    /// The secrets, as they would appear anywhere in an answer.
    static let secrets = [portal, updatePayment, emailToken, authorizationCode, checkoutURL, "portal-signature", "update-signature"]
    /// Fields whose non-null value acts on a subscription, wherever they appear.
    static let capabilityKeys: Set<String> = [
        "email_token", "customer_portal_url", "update_payment_method_url", "authorization_code", "url", "portal_url", "token",
    ]

    static func snapshot(_ provider: Provider) -> SubscriptionStatusSnapshot {
        var subscription = SubscriptionState(provider: provider, subscriptionID: provider == .paystack ? "SUB_scoped" : "5001")
        subscription.appUserID = "user-1"
        subscription.status = "active"
        subscription.planName = "Premium"
        subscription.renewsAt = now.addingTimeInterval(20 * 86_400)
        subscription.productID = "2"
        subscription.variantID = "3"
        subscription.emailToken = emailToken
        subscription.authorizationCode = authorizationCode
        subscription.customerPortalURL = portal
        subscription.updatePaymentMethodURL = updatePayment
        subscription.portalURLsSeenAt = now.addingTimeInterval(-60) // fresh: the full answer carries it
        subscription.cardBrand = "visa"
        subscription.cardLastFour = "4242"
        subscription.latestPurchaseAt = now.addingTimeInterval(-86_400)
        var pending = ProjectedCheckout(
            checkoutID: "chk-pending", provider: provider, appUserID: "user-1", variantID: "7", url: checkoutURL,
            createdAt: now.addingTimeInterval(-300))
        pending.expiresAt = now.addingTimeInterval(3300)
        return SubscriptionStatusSnapshot(
            now: now, subscriptions: [subscription], orders: [], pendingCheckout: pending,
            resolver: EntitlementResolver(policy: AccessPolicy(testDeployment: true)))
    }

    static func json(_ value: some Encodable) throws -> Any {
        try JSONSerialization.jsonObject(with: JSONEncoder().encode(value))
    }

    /// Every string in `value` that looks like a URL or is a known secret, and
    /// every capability key with a non-null value, as `path: value` lines.
    static func capabilities(in value: Any, at path: String = "$") -> [String] {
        switch value {
        case let object as [String: Any]:
            return object.sorted { $0.key < $1.key }.flatMap { key, child -> [String] in
                let here = "\(path).\(key)"
                let named = capabilityKeys.contains(key) && !(child is NSNull) ? ["\(here): capability field set"] : []
                return named + capabilities(in: child, at: here)
            }
        case let array as [Any]:
            return array.enumerated().flatMap { capabilities(in: $1, at: "\(path)[\($0)]") }
        case let string as String:
            let lowered = string.lowercased()
            let looksLikeURL = lowered.contains("://") || lowered.hasPrefix("www.") || lowered.hasPrefix("mailto:")
            let isSecret = secrets.contains { string.contains($0) }
            return looksLikeURL || isSecret ? ["\(path): \(string)"] : []
        default:
            return []
        }
    }

    @Test(arguments: [Provider.lemonsqueezy, .paystack])
    func anEntitlementsReadAnswerCarriesNoURLOrToken(_ provider: Provider) throws {
        let snapshot = Self.snapshot(provider)
        let full = snapshot.response
        // The projection really holds them, and the full answer shows them: the scan can see.
        #expect(full.customerPortalURL == Self.portal && full.emailToken == Self.emailToken && full.pendingCheckout?.url == Self.checkoutURL)
        #expect(!Self.capabilities(in: try Self.json(full)).isEmpty)

        let read = ServerRoutes.subscriptionAnswer(full, for: [.entitlementsRead])
        let found = Self.capabilities(in: try Self.json(read))
        #expect(found.isEmpty, "entitlements:read answer carries: \(found)")
        let entitlements = Self.capabilities(in: try Self.json(EntitlementsResponse(entitlements: snapshot.entitlements)))
        #expect(entitlements.isEmpty, "entitlements answer carries: \(entitlements)")

        // What describes the subscription is still there.
        #expect(read.active && read.planName == "Premium" && read.status == "active" && read.provider == provider)
        #expect(read.subscriptionCode == full.subscriptionCode && read.renewsAt == full.renewsAt && read.entitlements == full.entitlements)
        #expect(read.pendingCheckout?.checkoutId == "chk-pending" && read.pendingCheckout?.url == nil)
        let raw = try #require(try Self.json(read) as? [String: Any])
        #expect(raw["email_token"] is NSNull && raw["customer_portal_url"] is NSNull, "written as explicit nulls, as the contract says")
        #expect((raw["pending_checkout"] as? [String: Any])?["url"] is NSNull)
    }

    @Test func subscriptionsManageGetsTheFullAnswer() throws {
        for provider in [Provider.lemonsqueezy, .paystack] {
            let full = Self.snapshot(provider).response
            #expect(ServerRoutes.subscriptionAnswer(full, for: [.subscriptionsManage]) == full)
            #expect(ServerRoutes.subscriptionAnswer(full, for: [.entitlementsRead, .subscriptionsManage]) == full)
            #expect(ServerRoutes.subscriptionAnswer(full, for: [.entitlementsRead]) == full.withoutCapabilities)
        }
    }

    @Test func subscriptionsManageIncludesEntitlementsReadAndNotTheReverse() {
        #expect(Set([APIKeyScope.subscriptionsManage]).grants(.entitlementsRead))
        #expect(Set([APIKeyScope.subscriptionsManage]).grants(.subscriptionsManage))
        #expect(!Set([APIKeyScope.entitlementsRead]).grants(.subscriptionsManage))
        #expect(!Set<APIKeyScope>().grants(.entitlementsRead))
        #expect(PostgresAPIKeyStore.render([.subscriptionsManage, .entitlementsRead]) == "entitlements:read subscriptions:manage")
        #expect(PostgresAPIKeyStore.parse("subscriptions:manage") == [.subscriptionsManage])
    }
}
