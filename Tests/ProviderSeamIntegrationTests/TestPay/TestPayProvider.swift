import BillingModel
import Foundation

// TestPay: a payment provider that exists only in this test target. It plugs
// into Storefront the way a real provider does (a definition, one part per
// module, one registration) without a line of product code naming it, which
// is what the provider seam promises (docs/providers/adding-a-provider.md).

extension Provider {
    static let testpay = Provider(declaring: "testpay")
}

/// TestPay's definition: subscriptions whose every event carries the whole
/// subscription and the buyer's proven custom data.
struct TestPayProvider: ProviderDefinition {
    var provider: Provider { .testpay }

    var displayName: String { "TestPay" }

    var traits: ProviderTraits {
        ProviderTraits(
            catalogPrefix: "tp", subscriptionEventsNameTheOwner: true, subscriptionsHaveAFirstOrder: false,
            chargesLinkToSubscriptionsByCard: false, productIDIsAPlanCode: false, fetchedPurchasesMatchCheckouts: false,
            checkoutStatesTheAmount: false, refundsRestateTheOrder: true, requestsPerMinute: RequestLimits(test: 60, live: 60))
    }

    func snapshotKey(entity: ProviderSnapshot.Entity, entityID: String, customerID: String?) -> String {
        TopicKey.make(provider, "sub_\(entityID)")
    }

    /// Registers TestPay once per process; every test that uses it calls this first.
    static func register() {
        ProviderDirectory.register(TestPayProvider())
    }
}
