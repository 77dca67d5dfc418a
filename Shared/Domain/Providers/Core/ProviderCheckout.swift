import Foundation
import BillingModel

/// A hosted checkout the provider created.
public struct ProviderCheckout: Sendable, Hashable, Codable {
    public var provider: Provider
    /// Lemon Squeezy checkout UUID, or the Paystack transaction reference
    /// (``CheckoutCreatedRecord/providerCheckoutID``).
    public var providerCheckoutID: String
    /// Where to send the buyer (Lemon Squeezy `url`, Paystack `authorization_url`).
    public var url: String
    /// When the URL stops working, if the provider says.
    public var expiresAt: Date?
    /// Paystack's `access_code` (what the mobile SDKs take instead of the URL).
    public var accessCode: String?
    /// Whether the provider created it in test mode, when it says.
    public var testMode: Bool?

    public init(provider: Provider, providerCheckoutID: String, url: String, expiresAt: Date? = nil, accessCode: String? = nil, testMode: Bool? = nil)
    {
        self.provider = provider
        self.providerCheckoutID = providerCheckoutID
        self.url = url
        self.expiresAt = expiresAt
        self.accessCode = accessCode
        self.testMode = testMode
    }
}
