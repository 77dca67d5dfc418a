import Foundation

/// Whether the app may show a web checkout here and now: the answer of
/// ``StorefrontClient/webCheckoutAvailability()``.
public enum WebCheckoutAvailability: Hashable, Sendable {
    /// Show the purchase button; pass the permit to
    /// ``StorefrontClient/createCheckout(for:email:offer:permit:)``.
    case available(WebCheckoutPermit)
    /// Show the button, and when it is tapped call
    /// ``StorefrontClient/prepareWebCheckout(tokenType:)``: it shows Apple's
    /// notice and obtains the token the checkout needs.
    case needsNotice(storefront: String, entitlement: String?)
    /// Do not show a web checkout.
    case unavailable(storefront: String?, reason: UnavailableReason)

    public enum UnavailableReason: String, Hashable, Sendable {
        /// The server's policy says no for this storefront.
        case notAllowed = "not_allowed"
        /// The storefront needs Apple's entitlement, and StoreKit says this
        /// app is not eligible (no entitlement, or another region).
        case notEligible = "not_eligible"
        /// StoreKit could not say which storefront the device uses.
        case storefrontUnknown = "storefront_unknown"
    }

    /// Whether a purchase button may show at all.
    public var showsPurchaseButton: Bool {
        if case .unavailable = self { return false }
        return true
    }

    /// The decision, from the policy, the device's storefront and StoreKit's
    /// eligibility; pure, so each case is tested without StoreKit.
    static func decide(policy: LinkOutPolicy, storefront: AppStoreStorefrontAnswer, isEligible: () async -> Bool) async -> WebCheckoutAvailability {
        switch storefront {
        case .notAppStore:
            // No App Store rules apply (a platform without StoreKit).
            return .available(WebCheckoutPermit(storefront: nil, externalPurchaseToken: nil))
        case .unknown:
            return .unavailable(storefront: nil, reason: .storefrontUnknown)
        case .code(let code):
            let code = code.uppercased()
            switch policy.linkOut(for: code) {
            case .allowed: return .available(WebCheckoutPermit(storefront: code, externalPurchaseToken: nil))
            case .notAllowed: return .unavailable(storefront: code, reason: .notAllowed)
            case .entitlementRequired:
                guard await isEligible() else { return .unavailable(storefront: code, reason: .notEligible) }
                return .needsNotice(storefront: code, entitlement: policy.rule(for: code)?.entitlement)
            }
        }
    }
}

/// What a checkout opened from the app carries for the App Store: the
/// storefront and, where Apple's entitlement is needed, the token StoreKit
/// gave after its notice. The server checks both against its policy.
public struct WebCheckoutPermit: Hashable, Sendable {
    /// ISO 3166-1 alpha-3; nil where no App Store rules apply.
    public var storefront: String?
    public var externalPurchaseToken: String?

    public init(storefront: String?, externalPurchaseToken: String?) {
        self.storefront = storefront
        self.externalPurchaseToken = externalPurchaseToken
    }
}

/// Which App Store storefront the device uses, as an ``AppStoreEnvironment`` says.
public enum AppStoreStorefrontAnswer: Hashable, Sendable {
    /// A platform without the App Store (no StoreKit).
    case notAppStore
    /// StoreKit exists but did not say (no account signed in, offline).
    case unknown
    /// StoreKit's `Storefront.countryCode`.
    case code(String)
}
