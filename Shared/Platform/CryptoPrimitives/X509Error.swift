/// Why a certificate or a certificate chain was refused. Descriptions name
/// the check that failed, never certificate contents.
public enum X509Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a DER or PEM certificate (or trailing bytes after one).
    case malformed(String)
    /// OpenSSL could not build a chain to a trusted root, or a certificate on
    /// it failed a check (signature, validity at the given time, CA flags);
    /// the reason is OpenSSL's text for the error.
    case untrusted(String)
    /// The chain that verified is not the expected length (e.g. a leaf
    /// issued by the root directly, when an intermediate is required).
    case unexpectedChainLength(expected: Int, actual: Int)
    /// A certificate lacks an extension its position requires (e.g. Apple's
    /// marker OIDs); the associated value is the OID.
    case missingExtension(String)
    /// The leaf's public key is not of the kind required (e.g. P-256).
    case unsupportedKey(String)

    public var description: String {
        switch self {
        case .malformed(let reason): "malformed certificate: \(reason)"
        case .untrusted(let reason): "certificate chain not trusted: \(reason)"
        case .unexpectedChainLength(let expected, let actual): "certificate chain has \(actual) certificates, expected \(expected)"
        case .missingExtension(let oid): "certificate lacks extension \(oid)"
        case .unsupportedKey(let reason): "unsupported certificate key: \(reason)"
        }
    }
}
