import CryptoPrimitives
import SandboxKit

extension SandboxSigner {
    /// Signs like the providers do: hex HMAC-SHA256 (Lemon Squeezy) and HMAC-SHA512 (Paystack).
    static let openSSL = SandboxSigner(
        hmacSHA256Hex: { key, message in Hex.encode(HMAC.sha256(key: key, message: message)) },
        hmacSHA512Hex: { key, message in Hex.encode(HMAC.sha512(key: key, message: message)) }
    )
}
