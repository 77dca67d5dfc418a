import Foundation

/// Where the user manages a subscription at its provider (update the card,
/// invoices, cancel): the answer of ``StorefrontClient/customerPortal(subscriptionCode:)``.
/// Fetched fresh from the provider; open ``url`` at once (signed links expire).
public struct CustomerPortalLink: Codable, Hashable, Sendable {
    /// The provider's portal page for this customer and subscription.
    public var url: URL
    /// Who bills the subscription.
    public var provider: Provider
    /// The subscription the link is for.
    public var subscriptionCode: String

    /// Creates a link, e.g. for previews and tests.
    public init(url: URL, provider: Provider, subscriptionCode: String) {
        self.url = url
        self.provider = provider
        self.subscriptionCode = subscriptionCode
    }

    enum CodingKeys: String, CodingKey { case url, provider, subscriptionCode = "subscription_code" }

    /// Decodes `{"success":true,"url":"…","provider":"…","subscription_code":"…"}`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let text = try c.decode(String.self, forKey: .url)
        guard let url = URL(string: text), url.scheme != nil else {
            throw DecodingError.dataCorruptedError(forKey: .url, in: c, debugDescription: "not a URL: \(text.prefix(80))")
        }
        self.url = url
        provider = try c.decode(Provider.self, forKey: .provider)
        subscriptionCode = try c.decode(String.self, forKey: .subscriptionCode)
    }

    /// Encodes in the server's shape.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(url.absoluteString, forKey: .url)
        try c.encode(provider, forKey: .provider)
        try c.encode(subscriptionCode, forKey: .subscriptionCode)
    }
}
