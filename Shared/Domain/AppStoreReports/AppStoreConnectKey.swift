import CryptoPrimitives
import Foundation

/// The App Store Connect API key the reports to Apple are signed with, and
/// the tokens made from it (Apple, "Generating JSON Web Tokens for API
/// requests"): ES256 with the key's id in `kid`; claims `iss` (the issuer
/// id), `iat`, `exp`, `aud` `appstoreconnect-v1` and `bid` (the bundle id).
/// A new token per request, as Apple asks; each lives ``lifetime`` (Apple
/// refuses more than an hour).
///
/// The private key never leaves this value: `description` names the key id
/// only, so logging the key by mistake prints no secret.
public struct AppStoreConnectKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public static let audience = "appstoreconnect-v1"
    /// Well under Apple's hour, so a slow retry still carries a live token.
    public static let lifetime: TimeInterval = 20 * 60

    public let issuerID: String
    public let keyID: String
    public let bundleID: String
    private let signer: JWTSigner

    /// - Parameter privateKeyPEM: the `.p8` file's text (PKCS#8, P-256), as
    ///   App Store Connect hands it out.
    /// - Throws: ``JWTError/invalidKey(_:)`` when the PEM holds no P-256 private key.
    public init(issuerID: String, keyID: String, bundleID: String, privateKeyPEM: String) throws(JWTError) {
        self.issuerID = issuerID
        self.keyID = keyID
        self.bundleID = bundleID
        signer = try JWTSigner(es256PrivateKeyPEM: privateKeyPEM, keyID: keyID)
    }

    /// A signed token for one request made at `now`.
    /// - Throws: ``JWTError/signingFailed(_:)`` when OpenSSL cannot sign.
    public func token(now: Date) throws(JWTError) -> String {
        let issued = Int(now.timeIntervalSince1970)
        return try signer.sign([
            "iss": .string(issuerID), "iat": .int(issued), "exp": .int(issued + Int(Self.lifetime)), "aud": .string(Self.audience),
            "bid": .string(bundleID),
        ])
    }

    public var description: String { "App Store Connect API key \(keyID) (issuer \(issuerID))" }
    public var debugDescription: String { description }
    /// `dump` and debuggers see the ids, never the signer that holds the key.
    public var customMirror: Mirror { Mirror(self, children: ["keyID": keyID, "issuerID": issuerID, "bundleID": bundleID]) }
}
