import Foundation

/// One webhook delivery in provider-neutral form, as the projector consumes it.
///
/// Ids are the provider's own, as strings (Lemon Squeezy numeric ids become
/// `"421953"`; Paystack codes stay `SUB_…`, `CUS_…`, `INV_…`, `PLN_…`).
/// For Paystack, ``productID`` and ``variantID`` are both the plan code,
/// matching ``CatalogItem``.
public struct BillingEvent: Codable, Sendable, Hashable {
    public var kind: BillingEventKind
    public var provider: Provider
    /// The provider's event name, verbatim (`subscription_created`, `charge.success`).
    public var providerEventName: String
    /// The topic key for this event's entity (see the providers' normalizers):
    /// all events of one subscription (Lemon Squeezy) or one customer (Paystack) share it.
    public var entityKey: String

    // MARK: Who
    /// Provider customer id (Lemon Squeezy `customer_id`, Paystack `customer_code`).
    public var customerID: String?
    /// App user, from custom data ``CustomDataKeys/appUserID``. As parsed, a
    /// claim; the projector keeps it only with a valid ``CustomDataKeys/proof``
    /// (`OwnershipProof.check`), so in the projection non-nil means proven.
    public var appUserID: String?
    /// Storefront checkout id from custom data ``CustomDataKeys/checkoutID``;
    /// like ``appUserID``, kept only when proven.
    public var checkoutID: String?
    public var customerEmail: String?
    /// Every custom data / metadata entry with a scalar value, stringified.
    public var customData: [String: String]

    // MARK: What
    /// Lemon Squeezy subscription id, Paystack `SUB_…` code.
    public var subscriptionID: String?
    public var orderID: String?
    /// Lemon Squeezy subscription-invoice id, Paystack `INV_…` code.
    public var invoiceID: String?
    /// Paystack transaction reference (or refund's transaction reference); Lemon Squeezy order identifier UUID.
    public var transactionReference: String?
    public var productID: String?
    public var variantID: String?
    /// Product or plan name shown to people.
    public var planName: String?
    /// The provider's raw status string for the entity (`active`, `non-renewing`, `paid`, …).
    public var status: String?
    /// Lemon Squeezy `cancelled` flag (cancelled but maybe still in grace period).
    public var cancelled: Bool?

    // MARK: Money
    /// Amount in minor units: what the purchase cost (order total, invoice
    /// total, charge amount; for a dispute, the disputed transaction's amount).
    public var amount: Int64?
    /// Money given back, in minor units: Lemon Squeezy `refunded_amount`
    /// (cumulative), Paystack `refund.*` `amount`, a dispute's `refund_amount`.
    public var refundedAmount: Int64?
    public var currency: String?
    /// How a dispute ended. ``disputeReturnedTheMoney`` when the buyer got the
    /// money back (each provider maps its own word to it: Paystack's
    /// `resolution` is that word, Stripe's `lost` status becomes it);
    /// otherwise the provider's own word (Paystack `declined`, Stripe `won`).
    public var disputeResolution: String?

    /// The ``disputeResolution`` of a dispute the buyer won: Paystack's own
    /// word, kept because logged events and the projector's SQL hold it.
    public static let disputeReturnedTheMoney = "merchant-accepted"
    /// The plan's price per period when the payload states it (Paystack's
    /// `plan` object: amount, currency, interval). Nil otherwise: Lemon
    /// Squeezy's subscription and invoice payloads name the variant but not
    /// its price or interval (docs/revenue.md, "Where the prices come from").
    public var recurringPrice: RecurringPrice?

    // MARK: When (provider clock)
    public var createdAt: Date?
    public var updatedAt: Date?
    public var renewsAt: Date?
    public var endsAt: Date?
    public var trialEndsAt: Date?
    public var nextPaymentDate: Date?
    public var paidAt: Date?
    /// The provider's version timestamp of the entity (Lemon Squeezy
    /// `updated_at`; Paystack: `updated_at`, else `paid_at`, else `created_at`).
    /// The projector ignores an event whose ordering timestamp is OLDER than
    /// the one it already applied; equal is not stale (Paystack events of one
    /// subscription can share `created_at`).
    public var orderingTimestamp: Date?

    // MARK: Payment method and links
    /// Paystack's `email_token`, needed to disable a subscription.
    public var emailToken: String?
    public var cardBrand: String?
    public var cardLastFour: String?
    public var customerPortalURL: String?
    public var updatePaymentMethodURL: String?
    /// Test-mode data (Lemon Squeezy `test_mode`, Paystack `domain == "test"`).
    public var testMode: Bool?
    /// A plan change the provider will make later, as Storefront observed it
    /// after asking for one (``ObservedSubscription/pendingVariantID``).
    public var pendingVariantID: String?
    public var pendingChangeAt: Date?
    /// A subscription a plan change created to take over at this date
    /// (Paystack: the new plan's subscription, whose first charge is then):
    /// it grants nothing before, unless the provider has charged it since.
    public var startsAt: Date?
    /// The subscription this one replaces at ``startsAt`` (the one a Paystack
    /// plan change ends): `storefront report` joins the two histories, so
    /// the change counts as expansion or contraction, not churn and new.
    public var replacesSubscriptionID: String?
    /// Paystack `authorization.authorization_code`: each successful charge
    /// creates one, and the subscription created from that charge carries the
    /// same code, which is how a subscription finds the checkout that paid for it.
    public var authorizationCode: String?

    // MARK: Pause (Lemon Squeezy)
    /// `pause.mode`: `void` (no service while paused) or `free` (service continues).
    public var pauseMode: String?
    public var pauseResumesAt: Date?

    public init(kind: BillingEventKind, provider: Provider, providerEventName: String, entityKey: String) {
        self.kind = kind
        self.provider = provider
        self.providerEventName = providerEventName
        self.entityKey = entityKey
        customData = [:]
    }

    enum CodingKeys: String, CodingKey {
        case kind, provider, providerEventName, entityKey, customerID = "customerId", appUserID = "appUserId"
        case checkoutID = "checkoutId", customerEmail, customData, subscriptionID = "subscriptionId", orderID = "orderId"
        case invoiceID = "invoiceId", transactionReference, productID = "productId", variantID = "variantId", planName
        case status, cancelled, amount, refundedAmount, currency, disputeResolution, recurringPrice, createdAt, updatedAt, renewsAt, endsAt,
            trialEndsAt,
            nextPaymentDate
        case paidAt, orderingTimestamp, emailToken, cardBrand, cardLastFour
        case customerPortalURL = "customerPortalUrl", updatePaymentMethodURL = "updatePaymentMethodUrl", testMode
        case authorizationCode, pauseMode, pauseResumesAt
        case pendingVariantID = "pendingVariantId", pendingChangeAt, startsAt, replacesSubscriptionID = "replacesSubscriptionId"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        kind = try c.decode(BillingEventKind.self, forKey: .kind)
        provider = try c.decode(Provider.self, forKey: .provider)
        providerEventName = try c.decode(String.self, forKey: .providerEventName)
        entityKey = try c.decode(String.self, forKey: .entityKey)
        customerID = try c.decodeIfPresent(String.self, forKey: .customerID)
        appUserID = try c.decodeIfPresent(String.self, forKey: .appUserID)
        checkoutID = try c.decodeIfPresent(String.self, forKey: .checkoutID)
        customerEmail = try c.decodeIfPresent(String.self, forKey: .customerEmail)
        customData = try c.decodeIfPresent([String: String].self, forKey: .customData) ?? [:]
        subscriptionID = try c.decodeIfPresent(String.self, forKey: .subscriptionID)
        orderID = try c.decodeIfPresent(String.self, forKey: .orderID)
        invoiceID = try c.decodeIfPresent(String.self, forKey: .invoiceID)
        transactionReference = try c.decodeIfPresent(String.self, forKey: .transactionReference)
        productID = try c.decodeIfPresent(String.self, forKey: .productID)
        variantID = try c.decodeIfPresent(String.self, forKey: .variantID)
        planName = try c.decodeIfPresent(String.self, forKey: .planName)
        status = try c.decodeIfPresent(String.self, forKey: .status)
        cancelled = try c.decodeIfPresent(Bool.self, forKey: .cancelled)
        amount = try c.decodeIfPresent(Int64.self, forKey: .amount)
        refundedAmount = try c.decodeIfPresent(Int64.self, forKey: .refundedAmount)
        currency = try c.decodeIfPresent(String.self, forKey: .currency)
        disputeResolution = try c.decodeIfPresent(String.self, forKey: .disputeResolution)
        recurringPrice = try c.decodeIfPresent(RecurringPrice.self, forKey: .recurringPrice)
        createdAt = try c.decodeTimestamp(forKey: .createdAt)
        updatedAt = try c.decodeTimestamp(forKey: .updatedAt)
        renewsAt = try c.decodeTimestamp(forKey: .renewsAt)
        endsAt = try c.decodeTimestamp(forKey: .endsAt)
        trialEndsAt = try c.decodeTimestamp(forKey: .trialEndsAt)
        nextPaymentDate = try c.decodeTimestamp(forKey: .nextPaymentDate)
        paidAt = try c.decodeTimestamp(forKey: .paidAt)
        orderingTimestamp = try c.decodeTimestamp(forKey: .orderingTimestamp)
        emailToken = try c.decodeIfPresent(String.self, forKey: .emailToken)
        cardBrand = try c.decodeIfPresent(String.self, forKey: .cardBrand)
        cardLastFour = try c.decodeIfPresent(String.self, forKey: .cardLastFour)
        customerPortalURL = try c.decodeIfPresent(String.self, forKey: .customerPortalURL)
        updatePaymentMethodURL = try c.decodeIfPresent(String.self, forKey: .updatePaymentMethodURL)
        testMode = try c.decodeIfPresent(Bool.self, forKey: .testMode)
        authorizationCode = try c.decodeIfPresent(String.self, forKey: .authorizationCode)
        pauseMode = try c.decodeIfPresent(String.self, forKey: .pauseMode)
        pauseResumesAt = try c.decodeTimestamp(forKey: .pauseResumesAt)
        pendingVariantID = try c.decodeIfPresent(String.self, forKey: .pendingVariantID)
        pendingChangeAt = try c.decodeTimestamp(forKey: .pendingChangeAt)
        startsAt = try c.decodeTimestamp(forKey: .startsAt)
        replacesSubscriptionID = try c.decodeIfPresent(String.self, forKey: .replacesSubscriptionID)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .kind)
        try c.encode(provider, forKey: .provider)
        try c.encode(providerEventName, forKey: .providerEventName)
        try c.encode(entityKey, forKey: .entityKey)
        try c.encodeIfPresent(customerID, forKey: .customerID)
        try c.encodeIfPresent(appUserID, forKey: .appUserID)
        try c.encodeIfPresent(checkoutID, forKey: .checkoutID)
        try c.encodeIfPresent(customerEmail, forKey: .customerEmail)
        try c.encode(customData, forKey: .customData)
        try c.encodeIfPresent(subscriptionID, forKey: .subscriptionID)
        try c.encodeIfPresent(orderID, forKey: .orderID)
        try c.encodeIfPresent(invoiceID, forKey: .invoiceID)
        try c.encodeIfPresent(transactionReference, forKey: .transactionReference)
        try c.encodeIfPresent(productID, forKey: .productID)
        try c.encodeIfPresent(variantID, forKey: .variantID)
        try c.encodeIfPresent(planName, forKey: .planName)
        try c.encodeIfPresent(status, forKey: .status)
        try c.encodeIfPresent(cancelled, forKey: .cancelled)
        try c.encodeIfPresent(amount, forKey: .amount)
        try c.encodeIfPresent(refundedAmount, forKey: .refundedAmount)
        try c.encodeIfPresent(currency, forKey: .currency)
        try c.encodeIfPresent(disputeResolution, forKey: .disputeResolution)
        try c.encodeIfPresent(recurringPrice, forKey: .recurringPrice)
        for (date, key) in [
            (createdAt, CodingKeys.createdAt), (updatedAt, .updatedAt), (renewsAt, .renewsAt), (endsAt, .endsAt),
            (trialEndsAt, .trialEndsAt), (nextPaymentDate, .nextPaymentDate), (paidAt, .paidAt),
            (orderingTimestamp, .orderingTimestamp), (pauseResumesAt, .pauseResumesAt), (pendingChangeAt, .pendingChangeAt),
            (startsAt, .startsAt),
        ] {
            if let date { try c.encode(Timestamp.format(date), forKey: key) }
        }
        try c.encodeIfPresent(emailToken, forKey: .emailToken)
        try c.encodeIfPresent(pendingVariantID, forKey: .pendingVariantID)
        try c.encodeIfPresent(cardBrand, forKey: .cardBrand)
        try c.encodeIfPresent(cardLastFour, forKey: .cardLastFour)
        try c.encodeIfPresent(customerPortalURL, forKey: .customerPortalURL)
        try c.encodeIfPresent(updatePaymentMethodURL, forKey: .updatePaymentMethodURL)
        try c.encodeIfPresent(testMode, forKey: .testMode)
        try c.encodeIfPresent(authorizationCode, forKey: .authorizationCode)
        try c.encodeIfPresent(pauseMode, forKey: .pauseMode)
        try c.encodeIfPresent(replacesSubscriptionID, forKey: .replacesSubscriptionID)
    }
}
