import Webhooks
import BillingModel
import Foundation

/// Reads a Stripe Subscription into the neutral ``ProviderSubscription``,
/// with the same facts the webhook normaliser reads (``StripeSubscription``).
enum StripeSubscriptionMapper {
    static func subscription(_ s: StripeSubscription, provider: Provider) -> ProviderSubscription {
        var result = ProviderSubscription(provider: provider, id: s.id, status: s.rawStatus)
        result.customerID = s.customerID
        result.customerEmail = s.customerEmail
        result.productID = s.productID
        result.variantID = s.priceID
        result.trialEndsAt = s.trialEnd
        let scheduledEnd = s.cancelAt ?? (s.cancelAtPeriodEnd ? s.currentPeriodEnd : nil)
        // `cancelled` as Lemon Squeezy's flag: ending, or over.
        result.cancelled = s.cancelAtPeriodEnd || scheduledEnd != nil || s.status == .canceled
        result.endsAt = s.endedAt ?? scheduledEnd
        if !result.cancelled, [.trialing, .active, .pastDue].contains(s.status) {
            result.renewsAt = s.currentPeriodEnd
            result.nextPaymentDate = s.currentPeriodEnd
        }
        result.testMode = s.mode?.isTest
        return result
    }
}
