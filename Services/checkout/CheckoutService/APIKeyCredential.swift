import Foundation
import HTTPServer

/// Where a request carries a server's API key: `X-API-Key: sfk_…`, or
/// `Authorization: Bearer sfk_…`. App tokens (JWTs) never start with
/// ``APIKey/prefix`` (a JWT starts with its base64url header, `eyJ`), so the
/// two credentials are told apart by their text alone, before any lookup.
enum APIKeyCredential {
    static let headerName = "X-API-Key"

    /// The API key the request presents, if it presents one (well-formed or not).
    static func presented(in request: HTTPRequest) -> String? {
        if let key = request.headers[headerName] { return key.trimmingCharacters(in: .whitespaces) }
        guard let token = bearerToken(in: request), token.hasPrefix(APIKey.prefix) else { return nil }
        return token
    }

    /// The text after `Bearer ` in `Authorization`, if any.
    static func bearerToken(in request: HTTPRequest) -> String? {
        guard let header = request.headers["Authorization"] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return String(parts[1]).trimmingCharacters(in: .whitespaces)
    }

    /// The refusal of an API key on an app route: app routes act for the
    /// token's user, and a server key names no user.
    static let refusedOnAppRoutes = HTTPError(
        .forbidden, "API keys cannot call app routes; send the app user's token", code: "app_token_required")
}
