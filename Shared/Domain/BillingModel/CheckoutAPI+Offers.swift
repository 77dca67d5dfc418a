/// The shape checks of a checkout's offer fields (`promotionCode`,
/// `trialDays`, `locale`); whether the provider and the variant allow them is
/// the checkout service's question (``ProviderTraits``).
extension CreateCheckoutRequest {
    /// Longest promotion code accepted: more than any code a provider prints
    /// on a coupon, short enough to log and send in a query string.
    public static let maximumPromotionCodeLength = 64
    /// Trial bounds: Stripe's `trial_period_days` takes at most 730.
    public static let trialDayRange = 1...730

    /// A promotion code's shape: 1–64 of `A-Z a-z 0-9 - _` (what Stripe and
    /// Lemon Squeezy codes are made of), so it is safe in a query and a log.
    public static func isValidPromotionCode(_ code: String) -> Bool {
        !code.isEmpty && code.utf8.count <= maximumPromotionCodeLength
            && code.utf8.allSatisfy {
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D || $0 == 0x5F
            }
    }

    /// Whether ``promotionCode`` is absent or well-formed (spaces included are not: the code is sent as typed).
    public var hasValidPromotionCode: Bool { promotionCode.map(Self.isValidPromotionCode) ?? true }

    /// Whether ``trialDays`` is absent or within ``trialDayRange``.
    public var hasValidTrialDays: Bool { trialDays.map(Self.trialDayRange.contains) ?? true }

    /// The parsed ``locale``; nil when absent or malformed (check ``hasInvalidLocale``).
    public var checkoutLocale: CheckoutLocale? { locale.flatMap { CheckoutLocale($0) } }

    /// True when a locale was sent but is not a language tag (answer 400).
    public var hasInvalidLocale: Bool { locale.map { CheckoutLocale($0) == nil } ?? false }
}
