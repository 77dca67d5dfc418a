import HTTPServer
import Postgres
import Telemetry

/// Registers routes so that a database failure that may pass (a statement
/// or lock limit that fired, a lost connection, a full pool) answers 503
/// with `Retry-After` in the API's error shape, as the other "try again"
/// answers do, instead of a bare 500: the app's retry is the right move, and
/// the request held its connection no longer than the request-path limits.
struct DatabaseUnavailable<Base: RouteRegistrar>: RouteRegistrar {
    let base: Base

    @discardableResult
    func on(_ path: String, method: HTTPMethod, use handler: @escaping RouteHandler) -> Self {
        base.on(path, method: method) { request, context in
            do {
                return try await handler(request, context)
            } catch let error as PostgresError where error.isTransient {
                context.logger.warning("database unavailable", metadata: ["error": "\(error)", "http.route": context.route])
                throw HTTPError(
                    .serviceUnavailable, "Database busy or unreachable; try again", code: "database_unavailable", headers: ["Retry-After": "2"])
            }
        }
        return self
    }
}
