import CryptoPrimitives

/// The HMAC a provider signs with; fixed per provider, never taken from the request.
enum HMACAlgorithm: Sendable {
    case sha256, sha512

    /// Constant-time comparison of the hex signature with our HMAC of `body`
    /// (Crypto's `verifyHexSignature`: case-insensitive hex, surrounding spaces ignored).
    func verify(secret: [UInt8], body: [UInt8], signatureHex: String) -> Bool {
        let digest: DigestAlgorithm =
            switch self {
            case .sha256: .sha256
            case .sha512: .sha512
            }
        return verifyHexSignature(expectedAlgorithm: digest, secret: secret, body: body, signatureHex: signatureHex)
    }
}
