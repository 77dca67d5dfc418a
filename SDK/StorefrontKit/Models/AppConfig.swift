import Foundation

/// The server's app configuration (`GET /api/app-config`): today, where the
/// app may link to a web checkout, per App Store storefront. Read it through
/// ``StorefrontClient/webCheckoutAvailability()``, which combines it with the
/// device's storefront and StoreKit's eligibility.
public struct AppConfig: Hashable, Sendable, Decodable {
    public var linkOut: LinkOutPolicy

    enum CodingKeys: String, CodingKey {
        case linkOut = "link_out"
    }
}

/// Whether an app may show a link to a web checkout in one storefront.
public enum LinkOut: String, Hashable, Sendable, Decodable {
    /// Buttons and links need no entitlement (the United States since 1 May 2025).
    case allowed
    /// Only with one of Apple's StoreKit External Purchase entitlements, after
    /// Apple's notice, with the token StoreKit gives.
    case entitlementRequired = "entitlement_required"
    /// Not at all.
    case notAllowed = "not_allowed"
}

/// The server's link-out policy: a rule per group of storefronts, each with
/// its source, and a default. Not legal advice (see ``notice``).
public struct LinkOutPolicy: Hashable, Sendable, Decodable {
    public struct Rule: Hashable, Sendable, Decodable {
        public var linkOut: LinkOut
        /// ISO 3166-1 alpha-3 codes, as StoreKit's `Storefront.countryCode`.
        public var storefronts: [String]
        public var source: String
        /// For ``LinkOut/entitlementRequired``: the StoreKit API to use there.
        public var entitlement: String?

        enum CodingKeys: String, CodingKey {
            case linkOut = "link_out", storefronts, source, entitlement
        }
    }

    public var version: String
    public var notice: String
    public var defaultLinkOut: LinkOut
    public var rules: [Rule]

    enum CodingKeys: String, CodingKey {
        case version, notice, defaultLinkOut = "default", rules
    }

    /// The rule naming `storefront` (compared without case), if any.
    public func rule(for storefront: String) -> Rule? {
        let code = storefront.uppercased()
        return rules.first { $0.storefronts.contains(code) }
    }

    /// What `storefront` allows.
    public func linkOut(for storefront: String) -> LinkOut {
        rule(for: storefront)?.linkOut ?? defaultLinkOut
    }
}
