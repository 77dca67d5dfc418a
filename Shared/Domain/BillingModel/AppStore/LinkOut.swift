/// Whether an app may show a link to a web checkout in one App Store
/// storefront (docs/app-store.md).
public enum LinkOut: String, Sendable, Hashable, Codable, CaseIterable {
    /// Buttons and links to a web checkout need no entitlement (the United
    /// States since 1 May 2025).
    case allowed
    /// Only with one of Apple's StoreKit External Purchase entitlements: the
    /// app shows Apple's notice, obtains an external purchase token and sends
    /// it with the checkout, and every token is reported to Apple.
    case entitlementRequired = "entitlement_required"
    /// The app must not link out there.
    case notAllowed = "not_allowed"
}
