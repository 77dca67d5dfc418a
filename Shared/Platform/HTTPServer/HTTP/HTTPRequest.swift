/// A fully received request as handlers see it.
public struct HTTPRequest: Sendable {
    public var method: HTTPMethod
    /// The path without the query string, still percent-encoded (route
    /// parameters are decoded one segment at a time, so `%2F` stays inside a parameter).
    public var path: String
    public var query: QueryParameters
    public var headers: HTTPHeaders
    /// The body, collected up to the server's limit.
    public var body: [UInt8]
    /// The client's IP address as text (`127.0.0.1`, `::1`), or `""` when unknown.
    public var remoteAddress: String
    /// The `X-Request-Id` the client sent (when acceptable) or one the server generated.
    public var requestID: String

    public init(
        method: HTTPMethod, path: String, query: QueryParameters = QueryParameters(), headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [], remoteAddress: String = "", requestID: String = RequestID.generate()
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.requestID = requestID
    }

    /// Builds a request from a raw request target (`/path?query`).
    /// - Throws: ``HTTPError`` 400 when the target does not start with `/` or its query is malformed.
    public init(
        method: HTTPMethod, target: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [],
        remoteAddress: String = "", requestID: String = RequestID.generate()
    ) throws(HTTPError) {
        guard target.utf8.first == UInt8(ascii: "/") else { throw HTTPError(.badRequest, "Malformed request target") }
        let path: Substring
        let query: QueryParameters
        if let mark = target.firstIndex(of: "?") {
            path = target[..<mark]
            query = try QueryParameters(parsing: target[target.index(after: mark)...])
        } else {
            path = target[...]
            query = QueryParameters()
        }
        self.init(
            method: method, path: String(path), query: query, headers: headers, body: body,
            remoteAddress: remoteAddress, requestID: requestID)
    }
}
