import CryptoPrimitives
import SandboxKit

extension SandboxSigner {
    /// Signs like the providers do: hex HMAC-SHA256 (Lemon Squeezy) and HMAC-SHA512 (Paystack);
    /// checks the App Store Connect API tokens' ES256 signatures.
    public static let openSSL = SandboxSigner(
        hmacSHA256Hex: { key, message in Hex.encode(HMAC.sha256(key: key, message: message)) },
        hmacSHA512Hex: { key, message in Hex.encode(HMAC.sha512(key: key, message: message)) },
        verifiesES256JWT: { token, publicKeyPEM in
            guard let key = try? JWTVerificationKey.es256(publicKeyPEM: publicKeyPEM), let jwt = try? UnverifiedJWT(token) else { return false }
            return (try? jwt.verifiedClaims(using: key)) != nil
        }
    )
}
