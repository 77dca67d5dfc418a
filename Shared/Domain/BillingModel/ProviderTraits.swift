/// What a provider's events and API say or leave unsaid, as rules the
/// services follow instead of naming providers: the projector links and
/// owns purchases by these, checkout builds its request by them.
///
/// Each provider declares its own in its definition
/// (`Shared/Domain/Providers/<Provider>/Model/`), registered in ``ProviderDirectory``. A new provider answers each question here;
/// nothing else decides by a provider's name.
public struct ProviderTraits: Sendable, Hashable {
    /// The short prefix of opaque catalog ids (`ls_123`, `ps_PLN_x`); see ``CatalogID``.
    public var catalogPrefix: String
    /// Subscription events carry the purchase's proven custom data, so each
    /// names its subscription's owner (Lemon Squeezy's `meta.custom_data` on
    /// every subscription event). When false, a subscription's owner comes
    /// from the charge that created it (``chargesLinkToSubscriptionsByCard``).
    public var subscriptionEventsNameTheOwner: Bool
    /// A subscription's first payment also arrives as an order whose id the
    /// subscription names (Lemon Squeezy's `order_created` and the
    /// subscription's `order_id`): the order is part of the subscription, and
    /// its refund is the subscription's.
    public var subscriptionsHaveAFirstOrder: Bool
    /// Charges do not name the subscription they pay (Paystack's
    /// `charge.success`): a charge belongs to the subscription with the same
    /// customer, plan and card authorization, and its metadata names the
    /// owner of the subscriptions it created. Events with a transaction or
    /// authorization refold their subscription.
    public var chargesLinkToSubscriptionsByCard: Bool
    /// The product id of an event is a plan code (Paystack `PLN_…`), kept in
    /// the log's `plan_code` column to link charges to subscriptions.
    public var productIDIsAPlanCode: Bool
    /// Objects fetched from the API carry no custom data, so a purchase seen
    /// only through a fetch is matched to the checkouts that could have opened
    /// it (same variant, the user's verified email, while it was open).
    public var fetchedPurchasesMatchCheckouts: Bool
    /// Creating a checkout states the amount to charge (Paystack's transaction
    /// initialisation), rather than the provider taking a stored price.
    public var checkoutStatesTheAmount: Bool
    /// A checkout cannot be created without the buyer's email (Paystack's
    /// transaction initialisation requires it), so a buyer without an account
    /// types it before the provider's page opens (the paywall asks for it).
    public var checkoutNeedsTheEmail: Bool
    /// A checkout can carry a promotion (discount) code the provider checks
    /// and applies (Lemon Squeezy's `checkout_data.discount_code`, Stripe's
    /// promotion codes); otherwise a code is refused before the provider is asked.
    public var checkoutTakesPromotionCodes: Bool
    /// A checkout can set a subscription's free trial (Stripe's
    /// `subscription_data[trial_period_days]`); otherwise the trial, if any,
    /// belongs to the variant (``CatalogItem/trial``) and a requested one is refused.
    public var checkoutSetsTheTrial: Bool
    /// A refund event restates the whole order, its amount and the running
    /// total refunded (Lemon Squeezy's `order_refunded`). Otherwise each refund
    /// names the payment it returns and its own amount, and they add up
    /// (Paystack's `refund.processed` with its transaction reference).
    public var refundsRestateTheOrder: Bool
    /// A plan change at the period end is made by ending the subscription
    /// there and starting a new one for the new plan (Paystack, which has
    /// no plan change), so the subscription's cancellation carries its
    /// pending change rather than voiding it (docs/plan-changes.md).
    public var planChangesEndTheSubscription: Bool
    /// The provider's own event times are whole seconds (Stripe's `created`,
    /// Lemon Squeezy's `updated_at` with zero microseconds), so Storefront's
    /// millisecond observations are ordered against them at the second
    /// (``SubscriptionFold``). Paystack's are not: its times may carry
    /// milliseconds, and its state changes are ordered by their receipt.
    public var eventTimesAreWholeSeconds: Bool
    /// The documented API limit, per minute, for test keys and for live keys:
    /// the default of the shared request budget (`PROVIDER_BUDGET_*_PER_MINUTE`).
    public var requestsPerMinute: RequestLimits

    public init(
        catalogPrefix: String, subscriptionEventsNameTheOwner: Bool, subscriptionsHaveAFirstOrder: Bool,
        chargesLinkToSubscriptionsByCard: Bool, productIDIsAPlanCode: Bool, fetchedPurchasesMatchCheckouts: Bool,
        checkoutStatesTheAmount: Bool, refundsRestateTheOrder: Bool, requestsPerMinute: RequestLimits, checkoutNeedsTheEmail: Bool = false,
        checkoutTakesPromotionCodes: Bool = false, checkoutSetsTheTrial: Bool = false, planChangesEndTheSubscription: Bool = false,
        eventTimesAreWholeSeconds: Bool = false
    ) {
        self.catalogPrefix = catalogPrefix
        self.subscriptionEventsNameTheOwner = subscriptionEventsNameTheOwner
        self.subscriptionsHaveAFirstOrder = subscriptionsHaveAFirstOrder
        self.chargesLinkToSubscriptionsByCard = chargesLinkToSubscriptionsByCard
        self.productIDIsAPlanCode = productIDIsAPlanCode
        self.fetchedPurchasesMatchCheckouts = fetchedPurchasesMatchCheckouts
        self.checkoutStatesTheAmount = checkoutStatesTheAmount
        self.checkoutNeedsTheEmail = checkoutNeedsTheEmail
        self.checkoutTakesPromotionCodes = checkoutTakesPromotionCodes
        self.checkoutSetsTheTrial = checkoutSetsTheTrial
        self.refundsRestateTheOrder = refundsRestateTheOrder
        self.planChangesEndTheSubscription = planChangesEndTheSubscription
        self.eventTimesAreWholeSeconds = eventTimesAreWholeSeconds
        self.requestsPerMinute = requestsPerMinute
    }

}

/// A provider's documented API limit (per minute), by the kind of key.
public struct RequestLimits: Sendable, Hashable {
    public var test: Int
    public var live: Int

    public init(test: Int, live: Int) {
        self.test = test
        self.live = live
    }

    public func forKeys(live isLive: Bool) -> Int { isLive ? live : test }
}

extension Provider {
    /// The providers with `trait`, in ``allCases`` order (for SQL that applies a rule to them).
    public static func having(_ trait: KeyPath<ProviderTraits, Bool>) -> [Provider] {
        allCases.filter { $0.traits[keyPath: trait] }
    }
}
