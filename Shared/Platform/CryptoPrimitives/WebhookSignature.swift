/// Checks a webhook's hex-encoded HMAC signature (Lemon Squeezy sends
/// HMAC-SHA256 in `X-Signature`, Paystack HMAC-SHA512 in `x-paystack-signature`).
///
/// The hex may be upper or lower case; surrounding whitespace is ignored. The
/// comparison runs in constant time, so timing reveals nothing about how close
/// a forged signature came.
/// - Parameters:
///   - expectedAlgorithm: the hash the provider uses; never taken from the request.
///   - secret: the shared webhook secret.
///   - body: the raw request body, exactly as received.
///   - signatureHex: the signature header's value.
/// - Returns: `true` only when the signature is well-formed hex and matches.
public func verifyHexSignature(
    expectedAlgorithm: DigestAlgorithm,
    secret: some Collection<UInt8>,
    body: some Collection<UInt8>,
    signatureHex: String
) -> Bool {
    let trimmed = signatureHex.utf8.count <= 256 ? signatureHex.trimmingASCIIWhitespace() : ""
    guard let given = Hex.decode(trimmed) else { return false }
    let expected = HMAC.authenticate(expectedAlgorithm, key: secret, message: body)
    return constantTimeEquals(expected, given)
}

extension String {
    fileprivate func trimmingASCIIWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return self[first...last]
    }
}
