import CryptoPrimitives
import ServiceSettings
import BillingModel

/// Paystack: `x-paystack-signature` is the hex HMAC-SHA512 of the raw body
/// under the API secret key; optionally the request must also come from one of
/// the allowed addresses (Paystack documents three, see
/// `PaystackConfiguration.documentedWebhookIPs` in ProviderConfiguration).
public struct PaystackWebhookVerifier: WebhookVerifier {
    public var provider: Provider { .paystack }
    public var signatureHeader: String { "x-paystack-signature" }
    let secretKey: Secret
    /// nil: any source address.
    public let allowList: IPAllowList?

    public init(secretKey: Secret, allowList: IPAllowList? = nil) {
        self.secretKey = secretKey
        self.allowList = allowList
    }

    /// The address is checked first: a request from elsewhere is refused
    /// without spending an HMAC on it.
    public func verify(header: (String) -> String?, body: [UInt8], remoteAddress: String?) throws(WebhookVerificationError) {
        if let allowList {
            guard let remoteAddress, allowList.contains(remoteAddress) else {
                throw .remoteAddressNotAllowed(remoteAddress ?? "unknown address")
            }
        }
        try HexHMACCheck.run(header: signatureHeader, algorithm: .sha512, secret: secretKey, header: header, body: body)
    }
}
