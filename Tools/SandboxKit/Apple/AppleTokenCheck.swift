import Foundation

/// Checks an App Store Connect API token the way Apple documents it for the
/// App Store Server and External Purchase Server APIs ("Generating JSON Web
/// Tokens for API requests"): header `alg` ES256, `kid` the key's id, `typ`
/// JWT; claims `iss` the issuer id, `aud` `appstoreconnect-v1`, `bid` the
/// bundle id, `iat` not in the future and `exp` at most an hour after it and
/// not passed. The signature is the injected signer's to check.
struct AppleTokenCheck: Sendable {
    static let audience = "appstoreconnect-v1"
    /// Apple refuses tokens that live longer than an hour.
    static let longestLife: TimeInterval = 3600
    /// Clock skew tolerated on `iat`.
    static let skew: TimeInterval = 60

    let settings: AppleSettings
    let signer: SandboxSigner

    /// Nil when `authorization` carries a token Apple would take; else why not.
    func refusal(authorization: String?, now: Date) -> String? {
        guard let authorization, authorization.hasPrefix("Bearer ") else { return "no bearer token" }
        let token = String(authorization.dropFirst("Bearer ".count))
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = Self.json(parts[0]), let claims = Self.json(parts[1]) else { return "not a compact JWT" }
        guard header["alg"]?.stringValue == "ES256" else { return "alg is not ES256" }
        guard header["typ"]?.stringValue == "JWT" else { return "typ is not JWT" }
        guard header["kid"]?.stringValue == settings.keyID else { return "unknown kid" }
        guard let publicKey = settings.publicKeyPEM, signer.verifiesES256JWT(token, publicKey) else { return "bad signature" }
        guard claims["iss"]?.stringValue == settings.issuerID else { return "wrong iss" }
        guard claims["aud"]?.stringValue == Self.audience else { return "aud is not \(Self.audience)" }
        guard claims["bid"]?.stringValue == settings.bundleID else { return "wrong bid" }
        guard let issued = claims["iat"]?.intValue, let expires = claims["exp"]?.intValue else { return "iat and exp required" }
        let (iat, exp) = (TimeInterval(issued), TimeInterval(expires))
        guard iat <= now.timeIntervalSince1970 + Self.skew else { return "iat in the future" }
        guard exp > now.timeIntervalSince1970 else { return "expired" }
        guard exp - iat <= Self.longestLife else { return "exp more than an hour after iat" }
        return nil
    }

    /// A base64url JSON object, or nil.
    static func json(_ part: Substring) -> JSONValue? {
        var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let value = JSONValue.parse(Array(data)), value.objectValue != nil else { return nil }
        return value
    }
}
