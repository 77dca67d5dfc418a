import BillingModel
import Entitlements
import Webhooks
import Testing

/// Stripe's subscription statuses, with `cancel_at_period_end`, as phases.
@Suite("Stripe subscription statuses")
struct StatusVocabularyTests {
    @Test func everyStatusHasAPhase() {
        let expected: [StripeSubscriptionStatus: SubscriptionPhase] = [
            .trialing: .trialing, .active: .renewing, .pastDue: .pastDue, .unpaid: .unpaid, .canceled: .ended,
            .incomplete: .ended, .incompleteExpired: .ended, .paused: .paused,
        ]
        #expect(Set(expected.keys) == Set(StripeSubscriptionStatus.allCases))
        for (status, phase) in expected { #expect(status.phase(cancelAtPeriodEnd: false) == phase, "\(status)") }
    }

    @Test func theRawValuesAreStripes() {
        #expect(
            StripeSubscriptionStatus.allCases.map(\.rawValue).sorted()
                == ["active", "canceled", "incomplete", "incomplete_expired", "past_due", "paused", "trialing", "unpaid"])
    }

    /// A cancel at period end keeps `active` (or `trialing`) until the end: it runs, and will not renew.
    @Test func cancelAtPeriodEndMeansNonRenewing() {
        #expect(StripeSubscriptionStatus.active.phase(cancelAtPeriodEnd: true) == .nonRenewing)
        #expect(StripeSubscriptionStatus.trialing.phase(cancelAtPeriodEnd: true) == .nonRenewing)
        #expect(StripeSubscriptionStatus.active.phase(cancelAtPeriodEnd: true).isEndedOrEnding)
        // A failed renewal is still a billing issue whatever the flag says.
        #expect(StripeSubscriptionStatus.pastDue.phase(cancelAtPeriodEnd: true) == .pastDue)
        #expect(StripeSubscriptionStatus.canceled.phase(cancelAtPeriodEnd: true) == .ended)
    }

    @Test func onlyTrialingAndActiveAreInGoodStanding() {
        let good = StripeSubscriptionStatus.allCases.filter { $0.phase(cancelAtPeriodEnd: false).isInGoodStanding }
        #expect(Set(good) == [.trialing, .active])
        let issues = StripeSubscriptionStatus.allCases.filter { $0.phase(cancelAtPeriodEnd: false).isBillingIssue }
        #expect(Set(issues) == [.pastDue, .unpaid])
    }

    @Test func anUnknownStatusGrantsNothing() {
        #expect(StripeSubscriptionStatus.phase(of: "on_trial", cancelAtPeriodEnd: false) == .unrecognized)
        #expect(StripeSubscriptionStatus.phase(of: "cancelled", cancelAtPeriodEnd: false) == .unrecognized)
        #expect(StripeSubscriptionStatus.phase(of: "past_due", cancelAtPeriodEnd: false) == .pastDue)
    }
}
