import BillingModel
import Foundation

/// What a plan change would charge, as far as the provider can say
/// (`GET /api/subscription/change/preview`, docs/plan-changes.md). Amounts
/// are in minor units of ``currency``; nil where the provider cannot say.
public struct PlanChangePreview: Sendable, Hashable {
    /// The charge after the change: the new plan's next renewal.
    public struct Charge: Sendable, Hashable {
        /// Minor units of the preview's currency.
        public var amount: Int64
        /// When it is charged; nil when the provider does not say (a change of
        /// interval can move the billing date).
        public var at: Date?

        public init(amount: Int64, at: Date?) {
            self.amount = amount
            self.at = at
        }
    }

    /// ISO-4217, uppercase; nil when nothing is known.
    public var currency: String?
    /// Charged at once when the change is made; 0 when nothing is, nil when unknown.
    public var dueNow: Int64?
    /// The next charge afterwards; nil when unknown.
    public var next: Charge?
    /// True when the figures are the provider's own or certain (no proration
    /// estimated); false for an estimate.
    public var exact: Bool

    public init(currency: String?, dueNow: Int64?, next: Charge?, exact: Bool) {
        self.currency = currency?.uppercased()
        self.dueNow = dueNow
        self.next = next
        self.exact = exact
    }

    /// Nothing known: what a provider without a way to tell answers.
    public static let unknown = PlanChangePreview(currency: nil, dueNow: nil, next: nil, exact: false)

    /// Nothing charged now, the new plan's price at the current period's end:
    /// a change without proration that keeps the billing date, where the
    /// provider computes nothing to ask for.
    /// - Parameters:
    ///   - request: the plan and the period end it names.
    ///   - exact: whether the provider is known to charge just that.
    public static func atRenewal(_ request: PlanChangePreviewRequest, exact: Bool) -> PlanChangePreview {
        guard let plan = request.newPlan else {
            return PlanChangePreview(currency: nil, dueNow: 0, next: nil, exact: false)
        }
        return PlanChangePreview(
            currency: plan.currency, dueNow: 0, next: Charge(amount: plan.price, at: request.periodEnd), exact: exact && request.periodEnd != nil)
    }
}

/// What a provider is told to preview a plan change: the change, and what
/// Storefront already knows, so a provider without a preview API can answer
/// without a call.
public struct PlanChangePreviewRequest: Sendable, Hashable {
    /// The provider's id of the subscription to change.
    public var subscriptionID: String
    public var change: PlanChange
    /// The new plan as the catalog lists it (price, currency, interval); nil when the catalog does not hold it.
    public var newPlan: CatalogItem?
    /// The current plan as the catalog lists it; nil when the catalog does not hold it.
    public var currentPlan: CatalogItem?
    /// When the current period ends, as the projection holds it (the next renewal).
    public var periodEnd: Date?

    public init(subscriptionID: String, change: PlanChange, newPlan: CatalogItem?, currentPlan: CatalogItem?, periodEnd: Date?) {
        self.subscriptionID = subscriptionID
        self.change = change
        self.newPlan = newPlan
        self.currentPlan = currentPlan
        self.periodEnd = periodEnd
    }

    /// True when both plans are known and bill at another interval (monthly → annual).
    public var changesInterval: Bool {
        guard let new = newPlan?.interval, let current = currentPlan?.interval else { return false }
        return new != current
    }
}
