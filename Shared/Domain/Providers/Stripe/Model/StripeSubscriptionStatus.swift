/// Stripe's subscription statuses (the Subscription object's `status`); what
/// each means for access is in `Entitlements/StripeSubscriptionStatus+Phase.swift`.
///
/// Stripe says "will not renew" with a flag, not a status: an `active` or
/// `trialing` subscription with `cancel_at_period_end` runs to its period's
/// (or trial's) end and then turns `canceled`. So the phase depends on both.
public enum StripeSubscriptionStatus: String, Sendable, CaseIterable {
    /// In a free trial; Stripe charges when `trial_end` comes.
    case trialing
    /// Paid up; Stripe charges at the period's end.
    case active
    /// A renewal charge failed; Stripe retries (Smart Retries) while the period runs.
    case pastDue = "past_due"
    /// Retries are exhausted and the invoice stays open; Stripe no longer charges.
    case unpaid
    /// Over: Stripe's `canceled` is terminal (a cancel at period end stays `active` until then).
    case canceled
    /// The first payment has not gone through yet (declined, or awaiting 3-D Secure).
    case incomplete
    /// The first payment never went through within Stripe's 23 hours: over before it began.
    case incompleteExpired = "incomplete_expired"
    /// A trial ended without a payment method (`trial_settings.end_behavior.missing_payment_method: pause`):
    /// no invoices and no service until it is resumed.
    case paused
}
