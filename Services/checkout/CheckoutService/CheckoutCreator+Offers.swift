import BillingModel
import HTTPServer
import Providers

/// The offer fields of a checkout (`promotionCode`, `trialDays`, `locale`):
/// their shape, whether the variant's provider lets a checkout carry them
/// (``ProviderTraits``, so no provider is named here), and the answer when
/// the provider refuses one.
extension CheckoutCreator {
    /// Shape checks, before the catalog is asked: 400 with a code naming the field.
    static func validateOfferShape(_ body: CreateCheckoutRequest) throws(HTTPError) {
        if !body.hasValidPromotionCode {
            throw HTTPError(
                .badRequest, "promotionCode must be 1–\(CreateCheckoutRequest.maximumPromotionCodeLength) of A-Z a-z 0-9 - _",
                code: "invalid_promotion_code")
        }
        if !body.hasValidTrialDays {
            let range = CreateCheckoutRequest.trialDayRange
            throw HTTPError(
                .badRequest, "trialDays must be a whole number from \(range.lowerBound) to \(range.upperBound)", code: "invalid_trial_days")
        }
        if body.hasInvalidLocale {
            throw HTTPError(.badRequest, "locale must be a language tag such as en, de or pt-BR", code: "invalid_locale")
        }
    }

    /// What the provider and the item allow: 422 when the provider has no
    /// promotion codes, a checkout cannot set its trial, or the item is no subscription.
    static func validateOffer(_ body: CreateCheckoutRequest, item: CatalogItem, variant: CatalogID) throws(HTTPError) {
        let traits = variant.provider.traits
        let name = variant.provider.rawValue
        if body.promotionCode != nil, !traits.checkoutTakesPromotionCodes {
            throw HTTPError(.unprocessableContent, "\(name) checkouts take no promotion codes", code: "promotion_codes_unsupported")
        }
        guard body.trialDays != nil else { return }
        if !traits.checkoutSetsTheTrial {
            let hint = item.trial == nil ? "" : "; this variant's own trial is in the product's trial_interval"
            throw HTTPError(
                .unprocessableContent, "\(name) does not let a checkout set a trial\(hint)", code: "trial_unsupported")
        }
        if !item.isSubscription {
            throw HTTPError(.unprocessableContent, "trialDays applies to subscriptions only", code: "trial_needs_subscription")
        }
    }

    /// The body's `locale`, else the first acceptable tag of `Accept-Language`.
    static func locale(_ body: CreateCheckoutRequest, acceptLanguage: String?) -> CheckoutLocale? {
        body.checkoutLocale ?? acceptLanguage.flatMap { CheckoutLocale(acceptLanguage: $0) }
    }

    /// A provider's refusal of the offer: 422 naming its reason (its message
    /// is scrubbed of secrets and cut short by ``ProviderError``).
    static func offerRefusal(_ error: ProviderError, promotionCode: String?) -> HTTPError {
        promotionCode == nil
            ? HTTPError(.unprocessableContent, "\(error.provider.rawValue) refused the trial: \(error.message)", code: "trial_refused")
            : HTTPError(
                .unprocessableContent, "\(error.provider.rawValue) refused the promotion code: \(error.message)", code: "promotion_code_refused")
    }
}
