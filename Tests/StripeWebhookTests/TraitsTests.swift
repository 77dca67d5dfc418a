import BillingModel
import Webhooks
import Testing

/// What Stripe's traits tell the services.
@Suite("Stripe traits")
struct TraitsTests {
    @Test func theCatalogPrefixIsStripesOwn() {
        #expect(Provider.allCases.filter { $0.catalogPrefix == Provider.stripe.traits.catalogPrefix } == [.stripe])
    }

    @Test func theBudgetKeepsToStripesPerEndpointLimit() {
        // 25 requests a second per endpoint in either mode.
        #expect(Provider.stripe.traits.requestsPerMinute.forKeys(live: true) <= 25 * 60)
        #expect(Provider.stripe.traits.requestsPerMinute.forKeys(live: false) <= 25 * 60)
    }

    @Test func theOwnerTravelsOnTheSubscriptionNotByCard() {
        let traits = Provider.stripe.traits
        #expect(traits.subscriptionEventsNameTheOwner && !traits.chargesLinkToSubscriptionsByCard)
        #expect(!traits.fetchedPurchasesMatchCheckouts && !traits.checkoutStatesTheAmount && !traits.productIDIsAPlanCode)
        #expect(traits.refundsRestateTheOrder, "charge.refunded carries the charge's amount and running amount_refunded")
    }
}
