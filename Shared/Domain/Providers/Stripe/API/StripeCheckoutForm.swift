import Webhooks
import BillingModel
import Foundation

/// The parameters of `POST /v1/checkout/sessions` for one catalog price.
///
/// The owner claim travels three ways, as the other providers' custom data
/// does: `client_reference_id` (the app user), the session's `metadata`
/// (user, checkout id, proof, and what is bought: ``StripeMetadataKeys``),
/// and the same claim on what the payment creates —
/// `subscription_data[metadata]` on the subscription (so every subscription
/// and invoice event names its owner) or `payment_intent_data[metadata]` on
/// the PaymentIntent (and its charge, for refunds and disputes).
///
/// Offers: a promotion code as `discounts[0][promotion_code]`, a trial as
/// `subscription_data[trial_period_days]`, `automatic_tax[enabled]`, the
/// buyer's `locale` (``StripeCheckoutLocale``).
enum StripeCheckoutForm {
    /// Stripe's bounds: `client_reference_id` up to 200 characters, metadata values up to 500.
    static let maximumClientReferenceLength = 200
    static let maximumMetadataValueLength = 500
    /// `expires_at` must lie 30 minutes to 24 hours ahead; a minute's margin on each side
    /// absorbs the time between building the request and Stripe reading it.
    static let earliestExpiry: TimeInterval = 31 * 60
    static let latestExpiry: TimeInterval = 24 * 3600 - 60

    /// Why a request cannot become a session; the message names no value.
    struct Refusal: Error {
        let message: String
        /// The offer (trial) cannot be given, rather than the request being malformed.
        var offer = false
    }

    /// What the session offers beyond the price: a resolved promotion code,
    /// Stripe Tax, Stripe's own code field.
    struct Offer {
        /// The `promo_…` id of the buyer's code (``StripeClient/promotionCodeID(_:operation:)``).
        var promotionCodeID: String?
        /// `automatic_tax[enabled]=true` (``StripeConfiguration/automaticTax``).
        var automaticTax = false
        /// `allow_promotion_codes=true` when no code was given (Stripe refuses both together).
        var allowPromotionCodes = false
    }

    static func fields(
        _ request: CheckoutRequest, productID: String, productName: String?, subscription: Bool, successURL: String, cancelURL: String?,
        offer: Offer = Offer(), now: Date
    ) throws(Refusal) -> [StripeField] {
        // An anonymous checkout (no user) names only itself and its proof.
        let claim =
            (request.appUserID.map { [(CustomDataKeys.appUserID, $0)] } ?? [])
            + [(CustomDataKeys.checkoutID, request.checkoutID), (CustomDataKeys.proof, request.ownershipProof)]
        for (key, value) in claim where value.utf8.count > maximumMetadataValueLength || value.isEmpty {
            throw Refusal(message: "\(key) must be 1 to \(maximumMetadataValueLength) bytes for Stripe metadata")
        }
        var metadata = claim.map { StripeField($0.0, .string($0.1)) }
        if let productName, !productName.isEmpty {
            metadata.append(StripeField(StripeMetadataKeys.planName, .string(String(productName.prefix(maximumMetadataValueLength)))))
        }
        var fields: [StripeField] = [
            StripeField("mode", .string(subscription ? "subscription" : "payment")),
            StripeField("line_items", .list([.map([StripeField("price", .string(request.variantID)), StripeField("quantity", 1)])])),
            StripeField("success_url", .string(successURL)),
        ]
        if let cancelURL { fields.append(StripeField("cancel_url", .string(cancelURL))) }
        if let user = request.appUserID, user.utf8.count <= maximumClientReferenceLength {
            fields.append(StripeField("client_reference_id", .string(user)))
        }
        if let email = request.email { fields.append(StripeField("customer_email", .string(email.value))) }
        fields.append(
            StripeField(
                "metadata",
                .map(
                    metadata + [
                        StripeField(StripeMetadataKeys.priceID, .string(request.variantID)),
                        StripeField(StripeMetadataKeys.productID, .string(productID)),
                    ])))
        if subscription {
            var data = [StripeField("metadata", .map(metadata))]
            if let days = request.trialDays { data.append(StripeField("trial_period_days", .string(String(days)))) }
            fields.append(StripeField("subscription_data", .map(data)))
        } else {
            if request.trialDays != nil { throw Refusal(message: "a trial needs a recurring price", offer: true) }
            fields.append(StripeField("payment_intent_data", .map([StripeField("metadata", .map(metadata))])))
        }
        if let promotion = offer.promotionCodeID {
            fields.append(StripeField("discounts", .list([.map([StripeField("promotion_code", .string(promotion))])])))
        } else if offer.allowPromotionCodes {
            fields.append(StripeField("allow_promotion_codes", .string("true")))
        }
        if offer.automaticTax { fields.append(StripeField("automatic_tax", .map([StripeField("enabled", .string("true"))]))) }
        if let locale = StripeCheckoutLocale.value(for: request.locale) { fields.append(StripeField("locale", .string(locale))) }
        if let expiry = expiry(request.expiresAt, now: now) {
            fields.append(StripeField("expires_at", .string(String(Int64(expiry.timeIntervalSince1970)))))
        }
        return fields
    }

    /// The requested expiry in whole seconds, moved into Stripe's window when
    /// outside it; nil (Stripe's default, 24 hours) when none was requested.
    /// Inside the window it does not depend on `now`, so a repeat of the same
    /// checkout sends the same parameters under the same idempotency key. The
    /// session's own `expires_at` tells the caller what it got.
    static func expiry(_ requested: Date?, now: Date) -> Date? {
        guard let requested else { return nil }
        let ahead = requested.timeIntervalSince(now)
        let chosen =
            ahead < earliestExpiry ? now.addingTimeInterval(earliestExpiry) : ahead > latestExpiry ? now.addingTimeInterval(latestExpiry) : requested
        return Date(timeIntervalSince1970: chosen.timeIntervalSince1970.rounded(.down))
    }
}
