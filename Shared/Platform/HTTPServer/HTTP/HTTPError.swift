import JSONCodec
import Telemetry

/// An error a handler throws to answer with a given status and a message
/// that is safe to show to clients, rendered as
/// `{"success":false,"error":"…","code":"…"}`: `success` and `error` are the
/// seed tutorials' shape; `code` is a stable, machine-readable name apps can
/// switch on (``ErrorCode``), the status's own unless the handler names a
/// more specific one.
///
/// Any other error becomes a 500 whose body says only "Internal server error".
public struct HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    public let status: HTTPStatus
    /// Shown to the client verbatim: never put internal details here.
    public let message: String
    /// The stable code (`not_found`, `idempotency_key_reused`, …).
    public let code: String
    /// Extra response headers (e.g. `Allow` on 405, `Retry-After` on 503).
    public var headers: HTTPHeaders

    public init(_ status: HTTPStatus, _ message: String, code: String? = nil, headers: HTTPHeaders = HTTPHeaders()) {
        self.status = status
        self.message = message
        self.code = code ?? ErrorCode.forStatus(status)
        self.headers = headers
    }

    public var description: String { "HTTPError(\(status.code), \(code), \(message))" }

    public static func == (lhs: HTTPError, rhs: HTTPError) -> Bool {
        lhs.status == rhs.status && lhs.message == rhs.message && lhs.code == rhs.code
    }

    /// The JSON response this error renders to.
    public var response: HTTPResponse {
        var response = HTTPResponse(status: status, headers: headers, body: ErrorBody.render(message, code: code))
        response.headers.replaceOrAdd(name: "Content-Type", value: "application/json")
        return response
    }
}

/// The stable `code` of every error answer. A status has one default code;
/// handlers may name a more specific one, never reuse a code for another
/// meaning, and never remove one (apps switch on them). The OpenAPI
/// document lists them all.
public enum ErrorCode {
    /// The code a status has when the handler names none.
    public static func forStatus(_ status: HTTPStatus) -> String {
        switch status.code {
        case 400: "bad_request"
        case 401: "unauthorized"
        case 403: "forbidden"
        case 404: "not_found"
        case 405: "method_not_allowed"
        case 408: "request_timeout"
        case 409: "conflict"
        case 413: "payload_too_large"
        case 414: "uri_too_long"
        case 415: "unsupported_media_type"
        case 422: "unprocessable"
        case 429: "rate_limited"
        case 431: "headers_too_large"
        case 500: "internal_error"
        case 502: "bad_gateway"
        case 503: "unavailable"
        case 504: "timeout"
        case 505: "http_version_not_supported"
        default: status.code >= 500 ? "server_error" : "client_error"
        }
    }
}

/// Renders the error envelope by hand: fixed key order, no encoder on the error path.
enum ErrorBody {
    static func render(_ message: String, code: String) -> [UInt8] {
        var body = Array(#"{"success":false,"error":"#.utf8)
        JSONText.appendQuoted(message, to: &body)
        body.append(contentsOf: #","code":"#.utf8)
        JSONText.appendQuoted(code, to: &body)
        body.append(UInt8(ascii: "}"))
        return body
    }
}
