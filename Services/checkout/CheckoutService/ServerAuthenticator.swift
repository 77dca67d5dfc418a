import Foundation
import HTTPServer
import Telemetry

/// The server that called: the key that authenticated the request.
struct ServerCaller: Sendable, Equatable {
    let keyID: String
    let name: String
    /// The key's scopes, as stored: what the answer may carry depends on them.
    let scopes: Set<APIKeyScope>
}

/// Turns a server route's API key into a ``ServerCaller``, and refuses
/// everything else: no key at all (401), an app token (403: it is a valid
/// credential of the wrong kind, so retrying with it can never work), an
/// unknown, malformed, revoked or expired key (401 `invalid_api_key`), a key
/// of the other deployment mode (401 `api_key_wrong_mode`: a `sfk_test_` key in
/// a live deployment or the reverse, refused before any lookup), a key without
/// the route's scope (403 `insufficient_scope`).
struct ServerAuthenticator: Sendable {
    let store: any APIKeyStore
    /// The deployment's mode (`STOREFRONT_MODE`): only keys made for it are taken.
    let mode: DeploymentMode
    let now: @Sendable () -> Date

    /// - Throws: ``HTTPServer/HTTPError`` as above; the store's error when it cannot be read.
    func authenticate(_ request: HTTPRequest, requiring scope: APIKeyScope, logger: Logger) async throws -> ServerCaller {
        guard let presented = APIKeyCredential.presented(in: request) else {
            if APIKeyCredential.bearerToken(in: request) != nil {
                throw HTTPError(
                    .forbidden, "App tokens cannot call server routes; send an API key", code: "api_key_required",
                    headers: ["WWW-Authenticate": "Bearer"])
            }
            throw HTTPError(.unauthorized, "Missing API key", headers: ["WWW-Authenticate": "Bearer"])
        }
        // Malformed keys, and keys of the other mode, are refused before the database is asked anything.
        guard let key = APIKey(parsing: presented) else { throw Self.unauthorized("Invalid API key") }
        guard key.mode == mode else {
            // Its mode is in its text, so saying it tells nothing the caller did not send;
            // a test key must never read live customers, nor a live key leak into tests.
            throw HTTPError(
                .unauthorized, "This deployment is \(mode) and takes only \(APIKey.prefix)\(mode.rawValue)_ keys",
                code: "api_key_wrong_mode", headers: ["WWW-Authenticate": "Bearer"])
        }
        guard let record = try await store.find(keyID: key.keyID), key.matches(storedHash: record.hash)
        else { throw Self.unauthorized("Invalid API key") }
        guard record.revokedAt == nil else { throw Self.unauthorized("API key revoked") }
        guard !record.isExpired(at: now()) else { throw Self.unauthorized("API key expired") }
        guard record.scopes.grants(scope) else {
            throw HTTPError(.forbidden, "API key lacks the \(scope.rawValue) scope", code: "insufficient_scope")
        }
        do {
            try await store.markUsed(keyID: record.keyID, at: now())
        } catch {
            // The last-used time is a hint for the operator; a failed write must not refuse the caller.
            logger.warning("api key last-used time not recorded", metadata: ["api_key.id": record.keyID, "error": "\(error)"])
        }
        return ServerCaller(keyID: record.keyID, name: record.name, scopes: record.scopes)
    }

    static func unauthorized(_ message: String) -> HTTPError {
        HTTPError(.unauthorized, message, code: "invalid_api_key", headers: ["WWW-Authenticate": "Bearer"])
    }
}
