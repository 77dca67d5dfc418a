import Foundation

/// A payment provider behind Storefront, as the server names it
/// (`lemonsqueezy`, `paystack`, `stripe`).
///
/// A struct rather than an enum, so a server that adds a provider does not
/// break apps built against an older StorefrontKit; compare with the static
/// members (`provider == .paystack`) or `switch` over them with a `default`.
public struct Provider: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The server's lowercase name, e.g. `lemonsqueezy`.
    public let rawValue: String

    /// Wraps a provider name as the server sends it.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Lemon Squeezy.
    public static let lemonSqueezy = Provider(rawValue: "lemonsqueezy")
    /// Paystack.
    public static let paystack = Provider(rawValue: "paystack")
    /// Stripe (Checkout).
    public static let stripe = Provider(rawValue: "stripe")
    /// Not a provider: what a promotional grant's ``EntitlementInfo/provider``
    /// says, since nobody sold it (``EntitlementInfo/Source/grant``).
    public static let promotional = Provider(rawValue: "promotional")

    /// The raw name.
    public var description: String { rawValue }
}
