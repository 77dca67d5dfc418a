import CryptoPrimitives

/// Why a notification was refused. Descriptions never hold the payload.
public enum AppStoreNotificationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The body is not `{"signedPayload": "<JWS>"}` or the JWS is malformed.
    case malformedBody(String)
    /// The certificate chain (`x5c`) does not verify to a trusted root, or lacks Apple's marker OIDs.
    case untrustedChain(X509Error)
    /// The JWS signature does not verify with the leaf certificate's key, or is not ES256.
    case invalidSignature(String)
    /// Signed, but the payload is not a notification Storefront can read.
    case malformedPayload(String)
    /// Signed, but for another app (bundle id) than this deployment's.
    case foreignApp(String)
    /// Signed, but from an environment this deployment does not accept (a sandbox notification on a live one).
    case environmentNotAccepted(String)

    /// Whether the refusal is about who signed it (answered 401): the
    /// signature, the chain or the JWS around them.
    public var isAuthenticationFailure: Bool {
        switch self {
        case .malformedBody, .untrustedChain, .invalidSignature: true
        case .malformedPayload, .foreignApp, .environmentNotAccepted: false
        }
    }

    public var description: String {
        switch self {
        case .malformedBody(let reason): "malformed notification body: \(reason)"
        case .untrustedChain(let error): error.description
        case .invalidSignature(let reason): "notification signature does not verify: \(reason)"
        case .malformedPayload(let reason): "notification payload not understood: \(reason)"
        case .foreignApp(let bundle): "notification for another app (\(bundle.prefix(100)))"
        case .environmentNotAccepted(let environment): "notification from the \(environment) environment is not accepted"
        }
    }
}
