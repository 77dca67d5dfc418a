import Foundation
import Models

/// Which provider statuses are paying, trialing or in grace for revenue
/// (docs/revenue.md, "Definitions"). Not the access rules: a subscription
/// cancelled at the end of its period still pays for that period, and one
/// whose renewal failed is counted until the provider gives up on it, as
/// Baremetrics does; revenue stops when the provider ends it, or at its
/// announced end when no event says so.
enum RevenueStatus {
    /// Statuses that count as paying (MRR), by provider.
    static func isPaying(_ status: String, provider: Provider) -> Bool {
        switch provider {
        case .lemonsqueezy: ["active", "past_due", "cancelled"].contains(status)
        case .paystack: ["active", "attention", "non-renewing"].contains(status)
        }
    }

    /// Statuses that end at ``SubscriptionState/endsAt`` without another event.
    static func endsAtPeriodEnd(_ status: String, provider: Provider) -> Bool {
        switch provider {
        case .lemonsqueezy: status == "cancelled"
        case .paystack: status == "non-renewing"
        }
    }

    /// A renewal failed and the provider is still retrying.
    static func isInGrace(_ status: String) -> Bool { ["past_due", "attention"].contains(status) }

    /// A free trial (Lemon Squeezy `on_trial`; Paystack has no trials).
    static func isTrialing(_ status: String) -> Bool { status == "on_trial" }
}
