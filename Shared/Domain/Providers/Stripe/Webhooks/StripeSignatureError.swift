import BillingModel

/// Why a Stripe webhook's signature was refused. Never carries the body,
/// the secret or the received signature.
public enum StripeSignatureError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No `Stripe-Signature` header, or an empty one.
    case missingHeader
    /// Not `t=…,v1=…`: no timestamp, several, one that is not a positive integer, or an oversized header.
    case malformedHeader
    /// A timestamp but no usable `v1` signature (Stripe's scheme; `v0` is not accepted).
    case noV1Signature
    /// The verifier holds no secret (configuration left it empty).
    case noSecret
    /// No `v1` is the HMAC of these bytes under any of the secrets.
    case signatureMismatch
    /// Genuine, but signed too long ago (positive age) or too far ahead (negative).
    case timestampOutsideTolerance(ageSeconds: Int64)

    public var description: String {
        switch self {
        case .missingHeader: "Stripe-Signature header is missing"
        case .malformedHeader: "Stripe-Signature header is not t=<timestamp>,v1=<signature>"
        case .noV1Signature: "Stripe-Signature header has no v1 signature"
        case .noSecret: "no Stripe webhook signing secret is configured"
        case .signatureMismatch: "Stripe-Signature does not match the body"
        case .timestampOutsideTolerance(let age): "Stripe-Signature timestamp is \(age) s away from now, outside the tolerance"
        }
    }
}
