/// An HTTP status code with the reason phrases the server uses.
public struct HTTPStatus: Hashable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    public let code: Int

    public init(code: Int) { self.code = code }
    public init(integerLiteral value: Int) { code = value }

    public static let ok: HTTPStatus = 200
    public static let created: HTTPStatus = 201
    public static let accepted: HTTPStatus = 202
    public static let noContent: HTTPStatus = 204
    public static let badRequest: HTTPStatus = 400
    public static let unauthorized: HTTPStatus = 401
    public static let forbidden: HTTPStatus = 403
    public static let notFound: HTTPStatus = 404
    public static let methodNotAllowed: HTTPStatus = 405
    public static let conflict: HTTPStatus = 409
    public static let contentTooLarge: HTTPStatus = 413
    public static let unprocessableContent: HTTPStatus = 422
    public static let tooManyRequests: HTTPStatus = 429
    public static let requestHeaderFieldsTooLarge: HTTPStatus = 431
    public static let internalServerError: HTTPStatus = 500
    public static let serviceUnavailable: HTTPStatus = 503
    public static let gatewayTimeout: HTTPStatus = 504

    /// The decimal code, e.g. `"404"` (used as a metric label).
    public var description: String { String(code) }
}
