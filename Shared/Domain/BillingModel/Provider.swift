/// A payment provider Storefront sells through.
///
/// The raw value is the lowercase name used in topic keys, envelopes, the
/// status API (`"provider"`) and webhook routes (`/api/webhooks/{provider}`).
public enum Provider: String, Codable, Sendable, CaseIterable, Hashable {
    case lemonsqueezy
    case paystack

    /// What this provider's events and API say (its folder declares them:
    /// `Shared/Domain/Providers/<Provider>/Model/`).
    public var traits: ProviderTraits {
        switch self {
        case .lemonsqueezy: .lemonSqueezy
        case .paystack: .paystack
        }
    }

    /// The short prefix of opaque catalog ids (`ls_123`, `ps_PLN_x`); see ``CatalogID``.
    public var catalogPrefix: String { traits.catalogPrefix }
}
