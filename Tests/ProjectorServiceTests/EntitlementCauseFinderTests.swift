import Foundation
import BillingModel
import Testing
@testable import ProjectorService

/// Which record of a batch an entitlement change is blamed on.
@Suite struct EntitlementCauseFinderTests {
    static func webhook(
        _ key: String, _ provider: Provider = .lemonsqueezy, name: String = "subscription_updated", subscription: String?
    ) -> ProjectionInput {
        var event = BillingEvent(kind: .subscriptionUpdated, provider: provider, providerEventName: name, entityKey: "e")
        event.subscriptionID = subscription
        return .webhook(WebhookDelivery(dedupKey: key, event: event, receivedAt: Date(), payload: [], sourcePartition: 0, sourceOffset: 0))
    }

    static func touch(
        _ id: String, _ provider: String = "lemonsqueezy", type: EntitlementTouch.Kind = .subscription, transferred: Bool = false
    ) -> EntitlementTouch {
        EntitlementTouch(appUserID: "u", provider: provider, purchaseType: type, purchaseID: id, transferred: transferred)
    }

    @Test func theLastRecordNamingThePurchaseIsTheCause() {
        let inputs = [Self.webhook("k1", subscription: "1"), Self.webhook("k2", subscription: "2"), Self.webhook("k3", subscription: "1")]
        let cause = EntitlementCauseFinder.cause(of: [Self.touch("1")], in: inputs)
        #expect(cause == .init(kind: .providerEvent, provider: .lemonsqueezy, reference: "k3"))
    }

    @Test func aSnapshotIsNamedAsOne() {
        let inputs = [Self.webhook("snap", name: "storefront.snapshot.subscription", subscription: "1")]
        #expect(EntitlementCauseFinder.cause(of: [Self.touch("1")], in: inputs)?.kind == .snapshot)
    }

    @Test func aClaimCommandIsAClaimAndOtherCommandsAreCommands() {
        var claim = SubscriptionCommand(
            commandID: "c1", kind: .claimByEmail, provider: .paystack, subscriptionID: "o9", appUserID: "u", requestedAt: Date())
        claim.purchaseType = .order
        let cancel = SubscriptionCommand(
            commandID: "c2", kind: .cancelRequested, provider: .paystack, subscriptionID: "SUB_1", appUserID: "u", requestedAt: Date())
        let inputs: [ProjectionInput] = [.command(claim), .command(cancel)]
        #expect(
            EntitlementCauseFinder.cause(of: [Self.touch("o9", "paystack", type: .order, transferred: true)], in: inputs)
                == .init(kind: .claim, provider: .paystack, reference: "c1"))
        #expect(
            EntitlementCauseFinder.cause(of: [Self.touch("SUB_1", "paystack")], in: inputs)
                == .init(kind: .command, provider: .paystack, reference: "c2"))
    }

    @Test func aPurchaseReachedThroughTheLogFallsBackToTheProvidersLastRecord() {
        // A Paystack renewal charge names no subscription; the subscription it renews was touched.
        let inputs = [Self.webhook("ps", .paystack, name: "charge.success", subscription: nil), Self.webhook("ls", subscription: "7")]
        #expect(EntitlementCauseFinder.cause(of: [Self.touch("SUB_1", "paystack")], in: inputs)?.reference == "ps")
        #expect(EntitlementCauseFinder.cause(of: [Self.touch("SUB_1", "paystack")], in: [])?.reference == nil)
    }

    @Test func aGrantOrRevocationIsTheCauseOfItsGrantsChange() {
        let grant = GrantCommand(
            commandID: "c1", grantID: "grant_1", appUserID: "u",
            action: .grant(entitlement: "premium", startsAt: Date(), expiresAt: Date().addingTimeInterval(60)), requestedBy: "api_key:k",
            requestedAt: Date())
        var revoke = grant
        revoke.commandID = "c2"
        revoke.action = .revoke
        let touch = Self.touch("grant_1", EntitlementTouch.grantProvider, type: .grant)
        #expect(
            EntitlementCauseFinder.cause(of: [touch], in: [Self.webhook("k1", subscription: "1"), .grant(grant)])
                == .init(kind: .grant, provider: nil, reference: "grant_1"))
        #expect(
            EntitlementCauseFinder.cause(of: [touch], in: [.grant(grant), .grant(revoke)])
                == .init(kind: .revoke, provider: nil, reference: "grant_1"))
    }
}
