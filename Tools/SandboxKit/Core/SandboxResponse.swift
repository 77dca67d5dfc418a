/// A transport-neutral HTTP response.
public struct SandboxResponse: Sendable {
    public var status: Int
    public var headers: SandboxHeaders
    public var body: [UInt8]

    public init(status: Int, headers: SandboxHeaders = SandboxHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response with the given content type.
    public static func json(
        _ status: Int, _ value: JSONValue, contentType: String = "application/json", dialect: JSONWriter.Dialect = .node
    ) -> SandboxResponse {
        SandboxResponse(status: status, headers: SandboxHeaders([("Content-Type", contentType)]), body: JSONWriter.encode(value, dialect: dialect))
    }

    /// An HTML page.
    public static func html(_ status: Int, _ text: String) -> SandboxResponse {
        SandboxResponse(status: status, headers: SandboxHeaders([("Content-Type", "text/html; charset=utf-8")]), body: Array(text.utf8))
    }

    /// A `303 See Other` to `location`, so a browser follows a form post with a GET.
    public static func seeOther(_ location: String) -> SandboxResponse {
        SandboxResponse(
            status: 303, headers: SandboxHeaders([("Location", location), ("Content-Type", "text/plain")]), body: Array("See \(location)".utf8))
    }

    /// The body as UTF-8 text (for tests and logs).
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as JSON, or nil.
    public var json: JSONValue? { JSONValue.parse(body) }
}
