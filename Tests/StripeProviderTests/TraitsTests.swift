import BillingModel
import StripeProvider
import Testing

/// What Stripe's traits tell the services once the seam registers them.
@Suite("Stripe traits")
struct TraitsTests {
    @Test func theCatalogPrefixIsStripesOwn() {
        #expect(!Provider.allCases.map(\.catalogPrefix).contains(ProviderTraits.stripe.catalogPrefix))
    }

    @Test func theBudgetKeepsToStripesPerEndpointLimit() {
        // 25 requests a second per endpoint in either mode.
        #expect(ProviderTraits.stripe.requestsPerMinute.forKeys(live: true) <= 25 * 60)
        #expect(ProviderTraits.stripe.requestsPerMinute.forKeys(live: false) <= 25 * 60)
    }

    @Test func theOwnerTravelsOnTheSubscriptionNotByCard() {
        let traits = ProviderTraits.stripe
        #expect(traits.subscriptionEventsNameTheOwner && !traits.chargesLinkToSubscriptionsByCard)
        #expect(!traits.fetchedPurchasesMatchCheckouts && !traits.checkoutStatesTheAmount && !traits.productIDIsAPlanCode)
        #expect(traits.refundsRestateTheOrder, "charge.refunded carries the charge's amount and running amount_refunded")
    }
}
