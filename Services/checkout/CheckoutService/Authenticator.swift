import CryptoPrimitives
import Foundation
import HTTPServer
import Telemetry
import TokenVerification

/// Turns a request's `Authorization: Bearer <JWT>` into an ``AppUser``.
struct Authenticator: Sendable {
    let configuration: AuthConfiguration
    /// Verifies tokens; nil only with auth disabled.
    let verifier: TokenVerifier?
    /// Storefront's own anonymous users' tokens (docs/web-first.md), accepted
    /// beside the identity provider's; nil: none are.
    var anonymousUsers: AnonymousUsers? = nil

    /// - Parameters:
    ///   - configuration: how tokens are checked.
    ///   - verifier: the verifier built from `configuration` (with its key
    ///     sets' fetcher, logger and metrics); nil to build one here, which
    ///     fetches JWKS keys over HTTP and logs to stderr.
    init(configuration: AuthConfiguration, verifier: TokenVerifier? = nil, anonymousUsers: AnonymousUsers? = nil) {
        self.configuration = configuration
        self.verifier = verifier ?? configuration.tokenSettings.map { TokenVerifier(settings: $0, logger: Logger(service: "checkout")) }
        self.anonymousUsers = anonymousUsers
    }

    /// The caller. Its ``AppUser/emailVerified`` is true only for a token
    /// with an email whose `email_verified` claim is true, or any token with
    /// an email when the configuration says all emails are verified; never
    /// with auth disabled.
    /// - Parameter fallbackEmail: with auth disabled, the email the request
    ///   names (body or query), which then is the app user id.
    /// - Throws: ``HTTPError`` 401 when the token is missing, malformed, forged,
    ///   expired or has no subject (the reason is not echoed to the client),
    ///   or whose subject is reserved (``IssuerUserIDs``: another issuer's
    ///   prefixed ids, Storefront's anonymous ids);
    ///   403 `app_token_required` for a server's API key (``APIKeyCredential``);
    ///   503 when the token's identity provider keys were never loaded yet.
    func authenticate(_ request: HTTPRequest, fallbackEmail: String?) async throws(HTTPError) -> AppUser {
        // Before anything else, auth disabled included: a server key names no app user.
        if APIKeyCredential.presented(in: request) != nil { throw APIKeyCredential.refusedOnAppRoutes }
        guard let verifier else {
            guard let email = fallbackEmail.map(AppUser.normalize), !email.isEmpty else {
                throw HTTPError(.unauthorized, "Authentication is disabled: send an email to identify the user")
            }
            // Whatever the caller typed: never a verified email.
            return AppUser(id: email, email: email, emailVerified: false)
        }
        guard let header = request.headers["Authorization"] else {
            throw Self.unauthorized("Missing bearer token")
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw Self.unauthorized("Authorization must be a bearer token")
        }
        let token = String(parts[1]).trimmingCharacters(in: .whitespaces)
        if let anonymousID = anonymousUsers?.verify(token) {
            return AppUser(id: anonymousID, email: nil, isAnonymous: true)
        }
        let claims: JWTClaims
        do {
            claims = try await verifier.verify(token)
        } catch .keysUnavailable {
            throw HTTPError(.serviceUnavailable, "Sign-in keys are not available yet; retry shortly", headers: ["Retry-After": "5"])
        } catch {
            throw Self.unauthorized(error == .rejected(.expired) ? "Token expired" : "Invalid token")
        }
        guard let subject = claims.subject, !subject.isEmpty, subject.utf8.count <= 256 else {
            throw Self.unauthorized("Token has no subject")
        }
        let id: String
        do {
            id = try configuration.userIDs.appUserID(issuer: claims.issuer, subject: subject)
        } catch {
            throw Self.unauthorized(error == .tooLong ? "Token subject too long" : "Token subject not accepted")
        }
        // Verified when the token says so, or when the identity provider
        // only ever issues verified emails (AUTH_EMAILS_ARE_VERIFIED).
        return AppUser(
            id: id, email: claims.email, emailVerified: claims.email != nil && (claims.emailVerified || configuration.emailsAreVerified))
    }

    /// The caller when tokens are checked; nil when auth is disabled (the
    /// identity then comes from the request's email, see ``authenticate(_:fallbackEmail:)``).
    func verifiedUser(_ request: HTTPRequest) async throws(HTTPError) -> AppUser? {
        if verifier == nil { return nil }
        return try await authenticate(request, fallbackEmail: nil)
    }

    static func unauthorized(_ message: String) -> HTTPError {
        HTTPError(.unauthorized, message, headers: ["WWW-Authenticate": "Bearer"])
    }
}
