import BillingModel

/// The `locale` of a Checkout Session: the languages Stripe Checkout
/// documents (Stripe.js "Supported locales", the Checkout column, and the
/// API's `checkout.session.locale` enum), or `auto` (the browser's).
enum StripeCheckoutLocale {
    /// The values Checkout takes besides `auto`, as Stripe spells them.
    static let supported: Set<String> = [
        "bg", "cs", "da", "de", "el", "en", "en-GB", "es", "es-419", "et", "fi", "fil", "fr", "fr-CA", "hr", "hu", "id", "it", "ja", "ko",
        "lt", "lv", "ms", "mt", "nb", "nl", "pl", "pt", "pt-BR", "ro", "ru", "sk", "sl", "sv", "th", "tr", "vi", "zh", "zh-HK", "zh-TW",
    ]

    /// The buyer's tag when Stripe has it (`pt-BR`), else its language
    /// (`de` for `de-AT`), else `auto`; nil (Stripe's default) without a locale.
    static func value(for locale: CheckoutLocale?) -> String? {
        guard let locale else { return nil }
        if supported.contains(locale.tag) { return locale.tag }
        // Norwegian Bokmål is `nb` to Stripe; `no` is the macrolanguage browsers often send.
        let language = locale.language == "no" ? "nb" : locale.language
        return supported.contains(language) ? language : "auto"
    }
}
