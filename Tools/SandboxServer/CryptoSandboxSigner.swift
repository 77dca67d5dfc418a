import CryptoPrimitives
import Foundation
import SandboxKit
import Synchronization

extension SandboxSigner {
    /// Signs like the providers do: hex HMAC-SHA256 (Lemon Squeezy) and HMAC-SHA512 (Paystack);
    /// checks the App Store Connect API tokens' ES256 signatures; signs App Store notifications
    /// with `appleChains`.
    public static func openSSL(signingWith appleChains: SandboxAppleChains) -> SandboxSigner {
        SandboxSigner(
            hmacSHA256Hex: { key, message in Hex.encode(HMAC.sha256(key: key, message: message)) },
            hmacSHA512Hex: { key, message in Hex.encode(HMAC.sha512(key: key, message: message)) },
            verifiesES256JWT: { token, publicKeyPEM in
                guard let key = try? JWTVerificationKey.es256(publicKeyPEM: publicKeyPEM), let jwt = try? UnverifiedJWT(token) else { return false }
                return (try? jwt.verifiedClaims(using: key)) != nil
            },
            signsAppleNotification: { payload, trusted in
                guard let chain = try? (trusted ? appleChains.own() : appleChains.stranger()),
                    let claims = try? JSONDecoder().decode([String: JOSEValue].self, from: Data(payload)),
                    var signer = try? JWTSigner(es256PrivateKeyPEM: chain.leafKeyPEM)
                else { return nil }
                signer.certificateChain = chain.x5c
                return try? signer.sign(claims)
            }
        )
    }

    /// The default signer, with chains made when first needed.
    public static let openSSL = openSSL(signingWith: SandboxAppleChains())
}

/// The sandbox's Apple-shaped certificate chains, made with `openssl` when
/// first needed (most sandboxes never sign a notification): its own, whose
/// root the stack's receiver trusts, and a stranger's, whose signatures a
/// receiver must refuse.
public final class SandboxAppleChains: Sendable {
    private let chains = Mutex<(own: AppleCertificateChain?, stranger: AppleCertificateChain?)>((nil, nil))

    public init() {}

    /// The sandbox's own chain.
    public func own() throws -> AppleCertificateChain {
        try chains.withLock { chains in
            if let own = chains.own { return own }
            let made = try AppleCertificateChain.generate()
            chains.own = made
            return made
        }
    }

    /// A chain under another root.
    public func stranger() throws -> AppleCertificateChain {
        try chains.withLock { chains in
            if let stranger = chains.stranger { return stranger }
            var options = AppleCertificateChain.Options()
            options.name = "Stranger"
            let made = try AppleCertificateChain.generate(options)
            chains.stranger = made
            return made
        }
    }
}
