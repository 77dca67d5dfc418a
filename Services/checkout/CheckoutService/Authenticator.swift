import Foundation
import Crypto
import HTTPServer

/// Turns a request's `Authorization: Bearer <JWT>` into an ``AppUser``.
struct Authenticator: Sendable {
    let configuration: AuthConfiguration

    /// The caller. Its ``AppUser/emailVerified`` is true only for a token
    /// with an email whose `email_verified` claim is true, or any token with
    /// an email when the configuration says all emails are verified; never
    /// with auth disabled.
    /// - Parameter fallbackEmail: with auth disabled, the email the request
    ///   names (body or query), which then is the app user id.
    /// - Throws: ``HTTPError`` 401 when the token is missing, malformed, forged,
    ///   expired or has no subject. The reason is not echoed to the client.
    func authenticate(_ request: HTTPRequest, fallbackEmail: String?) throws(HTTPError) -> AppUser {
        switch configuration {
        case .disabled:
            guard let email = fallbackEmail.map(AppUser.normalize), !email.isEmpty else {
                throw HTTPError(.unauthorized, "Authentication is disabled: send an email to identify the user")
            }
            // Whatever the caller typed: never a verified email.
            return AppUser(id: email, email: email, emailVerified: false)
        case .jwt(let verifier, let emailsAreVerified):
            guard let header = request.headers["Authorization"] else {
                throw Self.unauthorized("Missing bearer token")
            }
            let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else {
                throw Self.unauthorized("Authorization must be a bearer token")
            }
            let claims: JWTClaims
            do {
                claims = try verifier.verify(String(parts[1]).trimmingCharacters(in: .whitespaces))
            } catch {
                throw Self.unauthorized(error == .expired ? "Token expired" : "Invalid token")
            }
            guard let subject = claims.subject, !subject.isEmpty, subject.utf8.count <= 256 else {
                throw Self.unauthorized("Token has no subject")
            }
            // Verified when the token says so, or when the identity provider
            // only ever issues verified emails (AUTH_EMAILS_ARE_VERIFIED).
            return AppUser(id: subject, email: claims.email, emailVerified: claims.email != nil && (claims.emailVerified || emailsAreVerified))
        }
    }

    /// The caller when tokens are checked; nil when auth is disabled (the
    /// identity then comes from the request's email, see ``authenticate(_:fallbackEmail:)``).
    func verifiedUser(_ request: HTTPRequest) throws(HTTPError) -> AppUser? {
        if configuration.isDisabled { return nil }
        return try authenticate(request, fallbackEmail: nil)
    }

    static func unauthorized(_ message: String) -> HTTPError {
        HTTPError(.unauthorized, message, headers: ["WWW-Authenticate": "Bearer"])
    }
}
