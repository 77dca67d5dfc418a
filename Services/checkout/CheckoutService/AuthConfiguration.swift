import ServiceSettings
import CryptoPrimitives
import Foundation
import ServiceRuntime
import TokenVerification

/// How app users' tokens are checked.
public enum AuthConfiguration: Sendable {
    /// Tokens are verified against these sources and rules (static HS256 or
    /// RS256 keys, JWKS URLs; see `TokenVerifier`). With `emailsAreVerified`
    /// every token's `email` counts as verified, whatever its `email_verified`
    /// claim says (for identity providers that only ever issue verified
    /// emails); otherwise only `email_verified: true` does. `userIDs` turns
    /// a token's issuer and subject into its app user id (the plain `sub`
    /// unless several issuers are configured).
    case tokens(TokenVerifierSettings, emailsAreVerified: Bool = false, userIDs: IssuerUserIDs = .plain)
    /// No token is checked: for local experiments only, and refused in a
    /// `live` deployment. The app user id is then the caller's email (body
    /// `customerEmail` or query `email`), which is never treated as verified.
    case disabled

    /// Tokens verified with one key and its rules (tests, tools).
    public static func jwt(_ verifier: JWTVerifier, emailsAreVerified: Bool = false, userIDs: IssuerUserIDs = .plain) -> AuthConfiguration {
        .tokens(TokenVerifierSettings(verifier), emailsAreVerified: emailsAreVerified, userIDs: userIDs)
    }

    /// Longest public key file read.
    static let maximumKeyFileBytes = 64 * 1024
    /// Most JWKS URLs accepted (each one is fetched and kept fresh).
    static let maximumKeySetURLs = 8
    /// Longest JWKS URL accepted.
    static let maximumURLLength = 2048

    /// Reads the token settings:
    /// - `AUTH_DISABLED` (default false);
    /// - the key sources, any combination, at least one: `AUTH_JWT_SECRET`
    ///   (HS256, or `AUTH_JWT_SECRET_FILE`), `AUTH_JWT_PUBLIC_KEY_FILE` (RS256
    ///   PEM), `AUTH_JWT_JWKS_URL` (comma-separated JWKS URLs, RS256 and ES256
    ///   keys by `kid`; `https`, or `http` to a loopback host, or any host
    ///   outside live mode);
    /// - `AUTH_JWT_ISSUER` and `AUTH_JWT_AUDIENCE` (each comma-separated: a
    ///   token's `iss` must be one of the issuers, its `aud` must contain one
    ///   of the audiences); at least one of them must be set, or the explicit
    ///   opt-out `AUTH_JWT_ALLOW_ANY_ISSUER_AND_AUDIENCE=true` (default false),
    ///   which then must not be combined with either, is refused with a JWKS
    ///   URL, and is listed in ``startupWarnings``; with a JWKS URL the
    ///   audience is required (an issuer alone is not enough);
    /// - `AUTH_JWT_USER_ID_PREFIXES` (``IssuerUserIDs``): required when
    ///   `AUTH_JWT_ISSUER` lists several issuers, so that two issuers' users
    ///   with the same `sub` are never one app user;
    /// - `AUTH_JWT_LEEWAY` (default 60 s, at most 5 minutes), `AUTH_JWT_MAX_AGE`
    ///   (optional: the oldest token accepted by its `iat`);
    /// - `AUTH_EMAILS_ARE_VERIFIED` (default false).
    ///
    /// `AUTH_DISABLED=true` with `mode` ``DeploymentMode/live`` is a problem:
    /// a deployment that takes real money never runs without token checks.
    /// Every problem makes the launcher refuse to start (exit status 78); a
    /// JWKS host that is down is not a problem here (keys are fetched later).
    /// - Parameter mode: the deployment's ``DeploymentMode`` (`STOREFRONT_MODE`).
    public static func fromEnvironment(_ reader: inout ConfigReader, mode: DeploymentMode) -> AuthConfiguration {
        let disabled = reader.bool(.authDisabled, default: false)
        let secret = reader.secret(.authJWTSecret)
        let keyFile = reader.string(.authJWTPublicKeyFile)
        let keySetURLs = reader.list(.authJWTJWKSURL) ?? []
        let issuers = reader.list(.authJWTIssuer) ?? []
        let audiences = reader.list(.authJWTAudience) ?? []
        let leeway = reader.duration(.authJWTLeeway, default: .seconds(60))
        let maxAge = reader.duration(.authJWTMaxAge)
        let allowAny = reader.bool(.authJWTAllowAnyIssuerAndAudience, default: false)
        let emailsAreVerified = reader.bool(.authEmailsAreVerified, default: false)
        if disabled {
            if mode.isLive {
                reader.report(
                    .authDisabled,
                    "AUTH_DISABLED=true is refused in live mode (STOREFRONT_MODE=live, or a provider key that shows it is live): without token checks "
                        + "anyone could act as any user; set AUTH_JWT_SECRET, AUTH_JWT_PUBLIC_KEY_FILE or AUTH_JWT_JWKS_URL instead")
            }
            return .disabled
        }

        let keySets = !keySetURLs.isEmpty
        switch (issuers.isEmpty && audiences.isEmpty, allowAny) {
        case (true, false) where !keySets:
            reader.report(
                .authJWTIssuer,
                "set AUTH_JWT_ISSUER and/or AUTH_JWT_AUDIENCE to the iss/aud your identity provider puts in app tokens "
                    + "(tokens are then checked against them), or \(allowAnyIssuerAndAudienceVariable)=true to accept any issuer and audience signed with the key"
            )
        case (false, true):
            let set = [issuers.isEmpty ? nil : "AUTH_JWT_ISSUER", audiences.isEmpty ? nil : "AUTH_JWT_AUDIENCE"].compactMap { $0 }.joined(
                separator: " and ")
            reader.report(allowAnyIssuerAndAudienceVariable, "is true but \(set) is set (and checked); unset one or the other")
        case (true, true) where !keySetURLs.isEmpty:
            reader.report(
                allowAnyIssuerAndAudienceVariable,
                "is refused with AUTH_JWT_JWKS_URL: an identity provider's key set signs the tokens of every app it serves, "
                    + "so AUTH_JWT_ISSUER and/or AUTH_JWT_AUDIENCE must say which are yours")
        default:
            break
        }
        if keySets, audiences.isEmpty, !allowAny {
            // An identity provider's key set and issuer are shared by every app it
            // serves (Apple's by every developer, Firebase's issuer names only the
            // project): only the audience, the app's own client or bundle id, says a
            // token was made for this app.
            reader.report(
                .authJWTAudience,
                "is required with AUTH_JWT_JWKS_URL: an identity provider's key set signs the tokens of every app it serves, "
                    + "and an issuer alone accepts them all; set it to your app's client id, bundle id or project id")
        }
        if leeway > JWTClaimRules.maximumLeeway {
            reader.report(.authJWTLeeway, "must be at most 300 seconds (5m): a larger clock-skew allowance accepts tokens long expired")
        }
        if let maxAge, maxAge <= .zero {
            reader.report(.authJWTMaxAge, "must be more than zero (unset it for no maximum token age)")
        }

        var staticKeys: [JWTVerificationKey] = []
        if let secret {
            do {
                staticKeys.append(try JWTVerificationKey.hs256(secret: Array(secret.reveal().utf8)))
            } catch {
                reader.report(.authJWTSecret, "must be at least 32 bytes")
            }
        }
        if let path = keyFile {
            if let data = FileManager.default.contents(atPath: path), data.count <= maximumKeyFileBytes, let pem = String(data: data, encoding: .utf8)
            {
                do {
                    staticKeys.append(try JWTVerificationKey.rs256(publicKeyPEM: pem))
                } catch {
                    reader.report(.authJWTPublicKeyFile, "not an RSA public key of 2048 to 8192 bits in PEM")
                }
            } else {
                reader.report(.authJWTPublicKeyFile, "cannot read a PEM file of at most \(maximumKeyFileBytes) bytes at that path")
            }
        }
        let urls = readKeySetURLs(keySetURLs, mode: mode, reader: &reader)
        if secret == nil, keyFile == nil, keySetURLs.isEmpty {
            reader.report(
                .authJWTSecret,
                "set AUTH_JWT_SECRET (HS256), AUTH_JWT_PUBLIC_KEY_FILE (RS256) and/or AUTH_JWT_JWKS_URL (RS256/ES256 keys of your identity provider), "
                    + "or AUTH_DISABLED=true for local experiments")
        }
        let userIDs = IssuerUserIDs.fromEnvironment(&reader, issuers: issuers)
        let rules = JWTClaimRules(issuers: issuers, audiences: audiences, leeway: leeway, maxAge: maxAge)
        return .tokens(
            TokenVerifierSettings(staticKeys: staticKeys, keySetURLs: urls, rules: rules), emailsAreVerified: emailsAreVerified, userIDs: userIDs)
    }

    /// The JWKS URLs, each checked: absolute `https` (or `http` to a loopback
    /// host; to any host only outside live mode), with a host, without user
    /// info or fragment, at most ``maximumURLLength`` bytes; duplicates dropped.
    static func readKeySetURLs(_ items: [String], mode: DeploymentMode, reader: inout ConfigReader) -> [URL] {
        guard items.count <= maximumKeySetURLs else {
            reader.report(.authJWTJWKSURL, "at most \(maximumKeySetURLs) URLs")
            return []
        }
        var urls: [URL] = []
        for (index, item) in items.enumerated() {
            let position = items.count == 1 ? "" : "item \(index + 1): "
            guard item.utf8.count <= maximumURLLength, let components = URLComponents(string: item),
                let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
                let host = components.host, !host.isEmpty, components.user == nil, components.password == nil, components.fragment == nil,
                let url = components.url
            else {
                reader.report(.authJWTJWKSURL, "\(position)expected an absolute https URL with a host (no user info or fragment)")
                continue
            }
            if scheme == "http", !isLoopback(host), mode.isLive {
                reader.report(
                    .authJWTJWKSURL,
                    "\(position)plain http is refused in live mode (except to a loopback host): keys fetched in clear could be swapped; use https")
                continue
            }
            if !urls.contains(url) { urls.append(url) }
        }
        return urls
    }

    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.")
    }

    /// The explicit opt-out from issuer and audience checks.
    static var allowAnyIssuerAndAudienceVariable: String { Setting.authJWTAllowAnyIssuerAndAudience.name }

    /// True when tokens are not checked.
    public var isDisabled: Bool {
        if case .disabled = self { return true }
        return false
    }

    /// Whether every token's email counts as verified (`AUTH_EMAILS_ARE_VERIFIED`).
    public var emailsAreVerified: Bool {
        if case .tokens(_, let emailsAreVerified, _) = self { return emailsAreVerified }
        return false
    }

    /// The token sources and rules; nil with auth disabled.
    public var tokenSettings: TokenVerifierSettings? {
        if case .tokens(let settings, _, _) = self { return settings }
        return nil
    }

    /// How a token's issuer and subject become its app user id (``IssuerUserIDs/plain`` with auth disabled).
    public var userIDs: IssuerUserIDs {
        if case .tokens(_, _, let userIDs) = self { return userIDs }
        return .plain
    }

    /// The configured sources, for the start-up log line: `disabled`, or e.g. `HS256,RS256-PEM,JWKS(2)`.
    public var summary: String {
        guard let settings = tokenSettings else { return "disabled" }
        var parts = settings.staticKeys.map { $0.algorithm == .hs256 ? "HS256" : "\($0.algorithm.rawValue)-PEM" }
        if !settings.keySetURLs.isEmpty { parts.append("JWKS(\(settings.keySetURLs.count))") }
        return parts.joined(separator: ",")
    }

    /// What is unsafe about this configuration, one sentence each, to be
    /// logged as warnings once at start-up: auth disabled, tokens accepted
    /// from any issuer for any audience, several key sources without an issuer
    /// list (users keyed by `sub` alone across issuers), keys fetched over
    /// plain http. Empty when none applies.
    public var startupWarnings: [String] {
        guard let settings = tokenSettings else {
            return ["AUTH_DISABLED=true: tokens are NOT checked and anyone can act as any email; use only for local experiments"]
        }
        var warnings: [String] = []
        if settings.rules.issuers.isEmpty, settings.rules.audiences.isEmpty {
            warnings.append(
                "\(Self.allowAnyIssuerAndAudienceVariable)=true: app tokens are NOT checked for issuer or audience; "
                    + "any token signed with the configured key is accepted, including ones minted for other applications. "
                    + "Set AUTH_JWT_ISSUER and/or AUTH_JWT_AUDIENCE instead")
        }
        let sources = settings.staticKeys.count + settings.keySetURLs.count
        if settings.rules.issuers.isEmpty, !settings.rules.audiences.isEmpty, sources > 1 {
            // Not refused: such deployments predate issuer namespaces, and their users' ids are their subs.
            warnings.append(
                "AUTH_JWT_ISSUER is unset with \(sources) key sources: tokens of any issuer are accepted and app users are keyed by sub alone, "
                    + "so two issuers' users with the same sub are one user. List the issuers in AUTH_JWT_ISSUER "
                    + "(with several, AUTH_JWT_USER_ID_PREFIXES keeps their users apart)")
        }
        for url in settings.keySetURLs {
            let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
            guard components?.scheme?.lowercased() == "http", let host = components?.host, !Self.isLoopback(host) else { continue }
            warnings.append("AUTH_JWT_JWKS_URL \(host): keys are fetched over plain http (refused in live mode); use https")
        }
        return warnings
    }
}
