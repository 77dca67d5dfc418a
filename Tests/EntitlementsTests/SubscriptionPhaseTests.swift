import BillingModel
import Entitlements
import Foundation
import Testing

/// Each provider's status vocabulary against the phases the access rules speak of.
@Suite struct SubscriptionPhaseTests {
    @Test(arguments: [
        (Provider.lemonsqueezy, "on_trial", SubscriptionPhase.trialing),
        (.lemonsqueezy, "active", .renewing),
        (.lemonsqueezy, "past_due", .pastDue),
        (.lemonsqueezy, "unpaid", .unpaid),
        (.lemonsqueezy, "cancelled", .cancelled),
        (.lemonsqueezy, "paused", .paused),
        (.lemonsqueezy, "expired", .ended),
        (.paystack, "active", .renewing),
        (.paystack, "non-renewing", .nonRenewing),
        (.paystack, "attention", .retryingAfterFailure),
        (.paystack, "complete", .ended),
        (.paystack, "completed", .ended),
        (.paystack, "cancelled", .ended),
    ])
    func documentedStatusesMapToTheirPhase(provider: Provider, status: String, phase: SubscriptionPhase) {
        #expect(provider.phase(of: status) == phase)
    }

    /// One provider's word means nothing in another's vocabulary, and an unknown word grants nothing.
    @Test func aStatusOutsideTheProvidersVocabularyIsUnrecognized() {
        #expect(Provider.lemonsqueezy.phase(of: "attention") == .unrecognized)
        #expect(Provider.paystack.phase(of: "on_trial") == .unrecognized)
        #expect(Provider.paystack.phase(of: "ACTIVE") == .unrecognized)
        #expect(Provider.lemonsqueezy.phase(of: "unknown") == .unrecognized)
    }

    @Test func theLifecycleFlagsPartitionThePhases() {
        for phase in SubscriptionPhase.allCases {
            // Nothing is both failing to pay and in good standing, nor ending and in good standing.
            #expect(!(phase.isBillingIssue && phase.isInGoodStanding), "\(phase)")
            #expect(!(phase.isEndedOrEnding && phase.isInGoodStanding), "\(phase)")
        }
        #expect(SubscriptionPhase.allCases.filter(\.isBillingIssue) == [.pastDue, .unpaid, .retryingAfterFailure])
        #expect(SubscriptionPhase.allCases.filter(\.isEndedOrEnding) == [.cancelled, .nonRenewing, .ended])
    }
}
