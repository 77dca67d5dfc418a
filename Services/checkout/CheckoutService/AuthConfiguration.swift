import Crypto
import Foundation
import ServiceRuntime

/// How app users' tokens are checked.
public enum AuthConfiguration: Sendable {
    /// Tokens are verified with this verifier (HS256 or RS256).
    case jwt(JWTVerifier)
    /// No token is checked: for local experiments only. The app user id is
    /// then the caller's email (body `customerEmail` or query `email`).
    case disabled

    /// Longest public key file read.
    static let maximumKeyFileBytes = 64 * 1024

    /// Reads `AUTH_DISABLED` (default false), `AUTH_JWT_SECRET` (HS256, or
    /// `AUTH_JWT_SECRET_FILE`), `AUTH_JWT_PUBLIC_KEY_FILE` (RS256 PEM),
    /// `AUTH_JWT_ISSUER`, `AUTH_JWT_AUDIENCE` and `AUTH_JWT_LEEWAY` (default 60 s).
    /// Exactly one of the secret and the public key must be set unless auth is disabled.
    public static func fromEnvironment(_ reader: inout ConfigReader) -> AuthConfiguration {
        let disabled = reader.bool("AUTH_DISABLED", default: false)
        let secret = reader.secret("AUTH_JWT_SECRET")
        let keyFile = reader.string("AUTH_JWT_PUBLIC_KEY_FILE")
        let issuer = reader.string("AUTH_JWT_ISSUER")
        let audience = reader.string("AUTH_JWT_AUDIENCE")
        let leeway = reader.duration("AUTH_JWT_LEEWAY", default: .seconds(60))
        if disabled { return .disabled }
        let key: JWTVerificationKey
        switch (secret, keyFile) {
        case (nil, nil):
            reader.report("AUTH_JWT_SECRET", "set AUTH_JWT_SECRET (HS256) or AUTH_JWT_PUBLIC_KEY_FILE (RS256), or AUTH_DISABLED=true for local experiments")
            return .disabled
        case (.some, .some):
            reader.report("AUTH_JWT_SECRET", "both AUTH_JWT_SECRET and AUTH_JWT_PUBLIC_KEY_FILE are set; set only one")
            return .disabled
        case (let secret?, nil):
            do {
                key = try JWTVerificationKey.hs256(secret: Array(secret.reveal().utf8))
            } catch {
                reader.report("AUTH_JWT_SECRET", "must be at least 32 bytes")
                return .disabled
            }
        case (nil, let path?):
            guard let data = FileManager.default.contents(atPath: path), data.count <= maximumKeyFileBytes,
                  let pem = String(data: data, encoding: .utf8)
            else {
                reader.report("AUTH_JWT_PUBLIC_KEY_FILE", "cannot read a PEM file of at most \(maximumKeyFileBytes) bytes at that path")
                return .disabled
            }
            do {
                key = try JWTVerificationKey.rs256(publicKeyPEM: pem)
            } catch {
                reader.report("AUTH_JWT_PUBLIC_KEY_FILE", "not an RSA public key of at least 2048 bits in PEM")
                return .disabled
            }
        }
        return .jwt(JWTVerifier(key: key, issuer: issuer, audience: audience, leeway: leeway))
    }

    /// True when tokens are not checked.
    public var isDisabled: Bool {
        if case .disabled = self { return true }
        return false
    }
}
