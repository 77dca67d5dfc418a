import BillingModel

/// One payment provider's API, in provider-neutral terms. ``LemonSqueezyClient``
/// and ``PaystackClient`` implement it; ``ProviderRegistry`` holds the enabled ones.
///
/// Every method throws ``ProviderError`` naming the provider and the call.
/// Reads are retried on 429/5xx with backoff; see each client for writes.
public protocol PaymentProvider: Sendable {
    /// Which provider this is.
    var provider: Provider { get }

    /// Every purchasable item, all pages, in a stable order.
    func catalog() async throws(ProviderError) -> [CatalogItem]

    /// Creates a hosted checkout for one item.
    func createCheckout(_ request: CheckoutRequest) async throws(ProviderError) -> ProviderCheckout

    /// One subscription by the provider's id (Lemon Squeezy id, Paystack `SUB_` code).
    func subscription(id: String) async throws(ProviderError) -> ProviderSubscription

    /// Every subscription of the customer with this email (empty when the provider does not know them).
    func subscriptions(customerEmail: EmailAddress) async throws(ProviderError) -> [ProviderSubscription]

    /// Cancels at the end of the paid period; returns the subscription as it is afterwards.
    func cancelSubscription(id: String) async throws(ProviderError) -> ProviderSubscription

    /// Undoes a cancellation where the provider allows it; returns the subscription afterwards.
    func resumeSubscription(id: String) async throws(ProviderError) -> ProviderSubscription

    /// A link where the customer manages the subscription (payment method, cancel):
    /// Lemon Squeezy's customer portal, Paystack's manage page. Fetched fresh:
    /// these links are short-lived.
    func managementURL(subscriptionID: String) async throws(ProviderError) -> String

    /// Gives money back for one payment through the provider's own refund API
    /// (Lemon Squeezy order or subscription-invoice refund, Paystack `POST
    /// /refund`, Stripe `POST /v1/refunds`). A refused refund (more than is
    /// left, already refunded) throws ``ProviderError/Kind/validation`` with
    /// the provider's reason.
    func refund(_ request: RefundRequest) async throws(ProviderError) -> ProviderRefund

    /// When this provider can make a plan change take effect (empty: it cannot change plans).
    var planChangeTimings: Set<PlanChange.Effective> { get }

    /// Moves the subscription to another plan; returns the subscription as the
    /// provider holds it afterwards. Only called with a timing in ``planChangeTimings``.
    func changePlan(subscriptionID: String, _ change: PlanChange) async throws(ProviderError) -> ProviderSubscription

    /// What ``changePlan(subscriptionID:_:)`` would charge now and next, as
    /// far as the provider can say; changes nothing. Only called with a
    /// timing in ``planChangeTimings``.
    func previewPlanChange(_ request: PlanChangePreviewRequest) async throws(ProviderError) -> PlanChangePreview
}

extension PaymentProvider {
    /// A provider that has not said otherwise cannot change plans.
    public var planChangeTimings: Set<PlanChange.Effective> { [] }

    public func changePlan(subscriptionID: String, _ change: PlanChange) async throws(ProviderError) -> ProviderSubscription {
        throw ProviderError(provider: provider, operation: "changePlan", kind: .validation, message: "plan changes are not supported")
    }

    /// A provider that has not said otherwise cannot tell what a change costs.
    public func previewPlanChange(_ request: PlanChangePreviewRequest) async throws(ProviderError) -> PlanChangePreview { .unknown }
}
