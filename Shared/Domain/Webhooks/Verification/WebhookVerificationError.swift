/// Why a webhook request was refused. Never includes the body, the secret or
/// the received signature.
public enum WebhookVerificationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The signature header is absent or empty.
    case missingSignature(header: String)
    /// The header is present but is not the HMAC of these bytes under our secret
    /// (including malformed hex and digests of the wrong length).
    case badSignature(header: String)
    /// The request came from an address outside the allow-list (or from an unknown address).
    case remoteAddressNotAllowed(String)
    /// The body exceeds ``WebhookVerifier/maximumBodySize``.
    case bodyTooLarge(bytes: Int)

    public var description: String {
        switch self {
        case .missingSignature(let header): "webhook signature header \(header) is missing"
        case .badSignature(let header): "webhook signature in \(header) does not match the body"
        case .remoteAddressNotAllowed(let address): "webhook from \(address.prefix(64)) is not on the allow-list"
        case .bodyTooLarge(let bytes): "webhook body too large (\(bytes) bytes)"
        }
    }
}
