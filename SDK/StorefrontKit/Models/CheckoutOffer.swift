import Foundation

/// What a checkout offers beyond the price, for
/// ``StorefrontClient/createCheckout(for:email:offer:)``: a promotion code,
/// a free trial, and the language of the provider's page.
public struct CheckoutOffer: Hashable, Sendable {
    /// A promotion (discount) code the provider checks and applies: 1–64 of
    /// `A-Z a-z 0-9 - _`. Only where ``Product/acceptsPromotionCodes``.
    public var promotionCode: String?
    /// Free days (1…730) before a subscription's first charge. Only where
    /// ``Product/checkoutSetsTrial``; a variant's own trial is ``Product/trialInterval``.
    public var trialDays: Int?
    /// The buyer's language as a BCP 47 tag (`de`, `pt-BR`); nil lets the
    /// server use the request's `Accept-Language`. Providers without a
    /// language setting ignore it.
    public var locale: String?

    /// - Parameter locale: e.g. `Locale.current.identifier(.bcp47)`.
    public init(promotionCode: String? = nil, trialDays: Int? = nil, locale: String? = nil) {
        self.promotionCode = promotionCode
        self.trialDays = trialDays
        self.locale = locale
    }
}
