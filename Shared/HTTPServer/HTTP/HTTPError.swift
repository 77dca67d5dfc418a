import Models
import Telemetry

/// An error a handler throws to answer with a given status and a message
/// that is safe to show to clients, rendered as `{"success":false,"error":"…"}`.
///
/// Any other error becomes a 500 whose body says only "Internal server error".
public struct HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    public let status: HTTPStatus
    /// Shown to the client verbatim: never put internal details here.
    public let message: String
    /// Extra response headers (e.g. `Allow` on 405, `Retry-After` on 503).
    public var headers: HTTPHeaders

    public init(_ status: HTTPStatus, _ message: String, headers: HTTPHeaders = HTTPHeaders()) {
        self.status = status
        self.message = message
        self.headers = headers
    }

    public var description: String { "HTTPError(\(status.code), \(message))" }

    public static func == (lhs: HTTPError, rhs: HTTPError) -> Bool {
        lhs.status == rhs.status && lhs.message == rhs.message
    }

    /// The JSON response this error renders to.
    public var response: HTTPResponse {
        var response = HTTPResponse(status: status, headers: headers, body: ErrorBody.render(message))
        response.headers.replaceOrAdd(name: "Content-Type", value: "application/json")
        return response
    }
}

/// Renders the error envelope by hand: fixed key order, no encoder on the error path.
enum ErrorBody {
    static func render(_ message: String) -> [UInt8] {
        var body = Array(#"{"success":false,"error":"#.utf8)
        JSONText.appendQuoted(message, to: &body)
        body.append(UInt8(ascii: "}"))
        return body
    }
}
