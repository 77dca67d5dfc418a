import Foundation
import BillingModel
import TestSupport
import Testing
@testable import Webhooks

/// Reconciler snapshots read with the webhook parsers, from the providers' real API answers.
@Suite struct ProviderSnapshotsTests {
    static let started = Date(timeIntervalSince1970: 1_800_000_000)

    static func snapshot(_ provider: Provider, _ entity: ProviderSnapshot.Entity, _ fixture: String?, id: String = "1") throws -> ProviderSnapshot {
        ProviderSnapshot(
            snapshotID: "s-1", provider: provider, entity: entity, entityID: id, outcome: fixture == nil ? .notFound : .found,
            body: try fixture.map(Fixture.bytes) ?? [], fetchStartedAt: started, fetchFinishedAt: started.addingTimeInterval(0.2),
            trigger: "sweep:t")
    }

    @Test func aLemonSqueezySubscriptionIsObservedAtTheFetchStart() throws {
        let event = try ProviderSnapshots.normalize(Self.snapshot(.lemonsqueezy, .subscription, "lemonsqueezy.api.subscription_get.json"))
        #expect(event.kind == .subscriptionObserved && event.providerEventName == "storefront.snapshot.subscription")
        #expect(event.subscriptionID == "1" && event.orderID == "1" && event.variantID == "1" && event.status == "active")
        #expect(event.orderingTimestamp == Self.started)
        #expect(event.entityKey == "lemonsqueezy:sub_1")
        #expect(event.appUserID == nil, "the API carries no custom data")
    }

    @Test func aLemonSqueezyOrderIsReadAsItsWebhookWouldBe() throws {
        let event = try ProviderSnapshots.normalize(Self.snapshot(.lemonsqueezy, .order, "lemonsqueezy.api.order_get.json"))
        #expect(event.kind == .orderCreated && event.orderID == "1" && event.entityKey == "lemonsqueezy:order_1")
    }

    @Test func aPaystackSubscriptionSaysItsOwnStatus() throws {
        let event = try ProviderSnapshots.normalize(
            Self.snapshot(.paystack, .subscription, "paystack.api.subscription_fetch.json", id: "SUB_vsyqdmlzble3uii"))
        #expect(event.kind == .subscriptionObserved && event.status == "active" && event.cancelled == false)
        #expect(event.subscriptionID == "SUB_vsyqdmlzble3uii" && event.authorizationCode == "AUTH_6tmt288t0o")
        #expect(event.entityKey == "paystack:CUS_xnxdt6s1zg1f4nx" && event.orderingTimestamp == Self.started)
    }

    @Test func aPaystackTransactionIsACharge() throws {
        let event = try ProviderSnapshots.normalize(Self.snapshot(.paystack, .transaction, "paystack.api.transaction_verify.json", id: "re4lyvq3s3"))
        #expect(event.kind == .orderCreated && event.transactionReference == "re4lyvq3s3" && event.authorizationCode == "AUTH_uh8bcl3zbn")
        #expect(event.testMode == true && event.providerEventName == "storefront.snapshot.transaction")
    }

    @Test func anObjectTheProviderNoLongerHasIsKeptAsUnknown() throws {
        let event = try ProviderSnapshots.normalize(Self.snapshot(.paystack, .subscription, nil, id: "SUB_gone"))
        #expect(event.kind.isUnknown && event.subscriptionID == "SUB_gone")
    }
}
