import Foundation
import HTTPServer
import Telemetry

/// The server that called: the key that authenticated the request.
struct ServerCaller: Sendable, Equatable {
    let keyID: String
    let name: String
}

/// Turns a server route's API key into a ``ServerCaller``, and refuses
/// everything else: no key at all (401), an app token (403: it is a valid
/// credential of the wrong kind, so retrying with it can never work), an
/// unknown, malformed or revoked key (401), a key without the route's scope (403).
struct ServerAuthenticator: Sendable {
    let store: any APIKeyStore
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
        // Malformed keys are refused before the database is asked anything.
        guard let key = APIKey(parsing: presented), let record = try await store.find(keyID: key.keyID), key.matches(storedHash: record.hash)
        else { throw Self.unauthorized("Invalid API key") }
        guard record.revokedAt == nil else { throw Self.unauthorized("API key revoked") }
        guard record.scopes.contains(scope) else {
            throw HTTPError(.forbidden, "API key lacks the \(scope.rawValue) scope", code: "insufficient_scope")
        }
        do {
            try await store.markUsed(keyID: record.keyID, at: now())
        } catch {
            // The last-used time is a hint for the operator; a failed write must not refuse the caller.
            logger.warning("api key last-used time not recorded", metadata: ["api_key.id": record.keyID, "error": "\(error)"])
        }
        return ServerCaller(keyID: record.keyID, name: record.name)
    }

    static func unauthorized(_ message: String) -> HTTPError {
        HTTPError(.unauthorized, message, code: "invalid_api_key", headers: ["WWW-Authenticate": "Bearer"])
    }
}
