import BillingModel
import Entitlements
import Webhooks

extension StripeSubscription {
    /// What the status means for access, with `cancel_at_period_end`, as the tests read it.
    var phase: SubscriptionPhase {
        StripeSubscriptionStatus.phase(of: rawStatus, cancelAtPeriodEnd: cancelAtPeriodEnd)
    }
}
