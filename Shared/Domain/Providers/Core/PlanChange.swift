import BillingModel

/// A change of a subscription to another plan of its product group, in
/// provider-neutral terms (docs/plan-changes.md). Each client turns it into
/// what its provider really offers.
public struct PlanChange: Sendable, Hashable {
    /// When the new plan takes over.
    public enum Effective: String, Sendable, Hashable, Codable, CaseIterable {
        /// At once: the provider switches the plan now.
        case now
        /// When the current paid period ends; until then the current plan stays.
        case periodEnd = "period_end"
    }

    /// What happens to the unused part of the current period.
    public enum Proration: String, Sendable, Hashable, Codable, CaseIterable {
        /// Credit the unused time and charge the difference now.
        case prorate
        /// No credit and no extra charge: the new price from the next renewal.
        case none
    }

    /// The provider's raw id of the new plan (Lemon Squeezy variant id, Stripe price id).
    public var variantID: String
    public var effective: Effective
    public var proration: Proration

    public init(variantID: String, effective: Effective, proration: Proration) {
        self.variantID = variantID
        self.effective = effective
        self.proration = proration
    }
}
