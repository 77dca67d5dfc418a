import Foundation
import BillingModel

/// What Storefront asks a provider for when an app user wants to buy one catalog item.
public struct CheckoutRequest: Sendable, Hashable {
    /// The provider's raw id of what is bought: Lemon Squeezy variant id, Paystack plan code
    /// (``CatalogItem/variantID``, ``CatalogID/rawID``).
    public var variantID: String
    /// Pre-filled on the hosted checkout (Paystack requires it).
    public var email: EmailAddress?
    /// The JWT subject; sent as custom data ``CustomDataKeys/appUserID``.
    /// nil for a web-first buyer without an account (an anonymous checkout):
    /// then only the checkout id and its anonymous proof are sent.
    public var appUserID: String?
    /// Storefront's checkout id; sent as custom data ``CustomDataKeys/checkoutID``.
    public var checkoutID: String
    /// `OwnershipProof.proof(checkoutID:appUserID:)` for the two ids above (or
    /// `proof(anonymousCheckoutID:)` without a user); sent as
    /// custom data ``CustomDataKeys/proof``. Without it the projector takes
    /// the ids for an unproven claim and the purchase gets no owner.
    public var ownershipProof: String
    /// Where the provider sends the buyer afterwards (LS `redirect_url`, Paystack `callback_url`).
    public var redirectURL: String?
    /// When the hosted URL stops working (Lemon Squeezy only; Paystack links do not expire by request).
    public var expiresAt: Date?
    /// Price in minor units. Paystack requires an amount even though a plan overrides
    /// it; when nil, the client reads it from the plan first. Ignored by Lemon Squeezy.
    public var amount: Int64?
    /// The Paystack transaction reference; nil lets the client generate one
    /// (`sf-` + 24 random hex digits). Ignored by Lemon Squeezy.
    public var reference: String?
    /// A promotion code for the provider to check and apply (Lemon Squeezy
    /// `discount_code`, a Stripe promotion code); only for providers with
    /// ``ProviderTraits/checkoutTakesPromotionCodes``. A code the provider
    /// refuses fails the call with ``ProviderError/Kind/offerRefused``.
    public var promotionCode: String?
    /// Free days before a subscription's first charge; only for providers
    /// with ``ProviderTraits/checkoutSetsTheTrial`` (others refuse it).
    public var trialDays: Int?
    /// The buyer's language; a provider without a locale parameter ignores it.
    public var locale: CheckoutLocale?

    public init(
        variantID: String, email: EmailAddress?, appUserID: String?, checkoutID: String, ownershipProof: String,
        redirectURL: String? = nil, expiresAt: Date? = nil, amount: Int64? = nil, reference: String? = nil, promotionCode: String? = nil,
        trialDays: Int? = nil, locale: CheckoutLocale? = nil
    ) {
        self.variantID = variantID
        self.email = email
        self.appUserID = appUserID
        self.checkoutID = checkoutID
        self.ownershipProof = ownershipProof
        self.redirectURL = redirectURL
        self.expiresAt = expiresAt
        self.amount = amount
        self.reference = reference
        self.promotionCode = promotionCode
        self.trialDays = trialDays
        self.locale = locale
    }

    /// The custom data / metadata both providers echo back in webhooks.
    /// Without a user, no ``CustomDataKeys/appUserID`` key at all.
    var customData: [String: String] {
        var data = [CustomDataKeys.checkoutID: checkoutID, CustomDataKeys.proof: ownershipProof]
        if let appUserID { data[CustomDataKeys.appUserID] = appUserID }
        return data
    }
}
