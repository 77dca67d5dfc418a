import Crypto
import Foundation
import ServiceRuntime
import Basics

/// How app users' tokens are checked.
public enum AuthConfiguration: Sendable {
    /// Tokens are verified with this verifier (HS256 or RS256). With
    /// `emailsAreVerified` every token's `email` counts as verified, whatever
    /// its `email_verified` claim says (for identity providers that only ever
    /// issue verified emails); otherwise only `email_verified: true` does.
    case jwt(JWTVerifier, emailsAreVerified: Bool = false)
    /// No token is checked: for local experiments only, and refused in a
    /// `live` deployment. The app user id is then the caller's email (body
    /// `customerEmail` or query `email`), which is never treated as verified.
    case disabled

    /// Longest public key file read.
    static let maximumKeyFileBytes = 64 * 1024

    /// Reads `AUTH_DISABLED` (default false), `AUTH_JWT_SECRET` (HS256, or
    /// `AUTH_JWT_SECRET_FILE`), `AUTH_JWT_PUBLIC_KEY_FILE` (RS256 PEM),
    /// `AUTH_JWT_ISSUER`, `AUTH_JWT_AUDIENCE`, `AUTH_JWT_LEEWAY` (default 60 s),
    /// `AUTH_JWT_ALLOW_ANY_ISSUER_AND_AUDIENCE` (default false) and
    /// `AUTH_EMAILS_ARE_VERIFIED` (default false).
    ///
    /// `AUTH_DISABLED=true` with `mode` ``DeploymentMode/live`` is a problem:
    /// a deployment that takes real money never runs without token checks
    /// (the launcher then refuses to start, exit status 78).
    ///
    /// Unless auth is disabled:
    /// - exactly one of the secret and the public key must be set;
    /// - `iss` is checked when `AUTH_JWT_ISSUER` is set and `aud` when
    ///   `AUTH_JWT_AUDIENCE` is set; at least one of them must be set, or the
    ///   explicit opt-out `AUTH_JWT_ALLOW_ANY_ISSUER_AND_AUDIENCE=true`
    ///   (which then must not be combined with either, and is listed in
    ///   ``startupWarnings``).
    /// - Parameter mode: the deployment's ``DeploymentMode`` (`STOREFRONT_MODE`).
    public static func fromEnvironment(_ reader: inout ConfigReader, mode: DeploymentMode) -> AuthConfiguration {
        let disabled = reader.bool("AUTH_DISABLED", default: false)
        let secret = reader.secret("AUTH_JWT_SECRET")
        let keyFile = reader.string("AUTH_JWT_PUBLIC_KEY_FILE")
        let issuer = reader.string("AUTH_JWT_ISSUER")
        let audience = reader.string("AUTH_JWT_AUDIENCE")
        let leeway = reader.duration("AUTH_JWT_LEEWAY", default: .seconds(60))
        let allowAny = reader.bool("AUTH_JWT_ALLOW_ANY_ISSUER_AND_AUDIENCE", default: false)
        let emailsAreVerified = reader.bool("AUTH_EMAILS_ARE_VERIFIED", default: false)
        if disabled {
            if mode.isLive {
                reader.report(
                    "AUTH_DISABLED",
                    "AUTH_DISABLED=true is refused in live mode (STOREFRONT_MODE=live, or a live Paystack key): without token checks "
                        + "anyone could act as any user; set AUTH_JWT_SECRET or AUTH_JWT_PUBLIC_KEY_FILE instead")
            }
            return .disabled
        }

        switch (issuer, audience, allowAny) {
        case (nil, nil, false):
            reader.report(
                "AUTH_JWT_ISSUER",
                "set AUTH_JWT_ISSUER and/or AUTH_JWT_AUDIENCE to the iss/aud your identity provider puts in app tokens "
                    + "(tokens are then checked against them), or \(allowAnyIssuerAndAudienceVariable)=true to accept any issuer and audience signed with the key"
            )
        case (_, _, true) where issuer != nil || audience != nil:
            let set = [issuer.map { _ in "AUTH_JWT_ISSUER" }, audience.map { _ in "AUTH_JWT_AUDIENCE" }].compactMap { $0 }.joined(separator: " and ")
            reader.report(allowAnyIssuerAndAudienceVariable, "is true but \(set) is set (and checked); unset one or the other")
        default:
            break
        }

        let key: JWTVerificationKey
        switch (secret, keyFile) {
        case (nil, nil):
            reader.report(
                "AUTH_JWT_SECRET", "set AUTH_JWT_SECRET (HS256) or AUTH_JWT_PUBLIC_KEY_FILE (RS256), or AUTH_DISABLED=true for local experiments")
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
        return .jwt(JWTVerifier(key: key, issuer: issuer, audience: audience, leeway: leeway), emailsAreVerified: emailsAreVerified)
    }

    /// The explicit opt-out from issuer and audience checks.
    static let allowAnyIssuerAndAudienceVariable = "AUTH_JWT_ALLOW_ANY_ISSUER_AND_AUDIENCE"

    /// True when tokens are not checked.
    public var isDisabled: Bool {
        if case .disabled = self { return true }
        return false
    }

    /// Whether every token's email counts as verified (`AUTH_EMAILS_ARE_VERIFIED`).
    public var emailsAreVerified: Bool {
        if case .jwt(_, let emailsAreVerified) = self { return emailsAreVerified }
        return false
    }

    /// What is unsafe about this configuration, one sentence each, to be
    /// logged as warnings once at start-up: auth disabled, or tokens accepted
    /// from any issuer for any audience. Empty when neither applies.
    public var startupWarnings: [String] {
        switch self {
        case .disabled:
            return ["AUTH_DISABLED=true: tokens are NOT checked and anyone can act as any email; use only for local experiments"]
        case .jwt(let verifier, _):
            guard verifier.issuer == nil, verifier.audience == nil else { return [] }
            return [
                "\(Self.allowAnyIssuerAndAudienceVariable)=true: app tokens are NOT checked for issuer or audience; "
                    + "any token signed with the configured key is accepted, including ones minted for other applications. "
                    + "Set AUTH_JWT_ISSUER and/or AUTH_JWT_AUDIENCE instead"
            ]
        }
    }
}
