import Foundation

/// One HTTP request to send with ``HTTPClient/execute(_:)``.
public struct HTTPClientRequest: Sendable {
    /// The request method.
    public var method: HTTPMethod
    /// The absolute `http` or `https` URL.
    public var url: String
    /// Header fields to send. `Content-Length` is set by the client.
    public var headers: HTTPHeaders
    /// The request body; empty for none.
    public var body: [UInt8]
    /// Overrides the client's connect timeout for this request.
    public var connectTimeout: Duration?
    /// Overrides the client's total timeout (per attempt: connect, send, receive) for this request.
    public var timeout: Duration?
    /// Overrides the client's retry policy for this request.
    public var retryPolicy: RetryPolicy?
    /// Overrides whether the request may be repeated. `nil` means "as the method says"
    /// (GET, HEAD, PUT, DELETE, OPTIONS are; POST and PATCH are not). Set `true` for a
    /// POST that carries an idempotency key.
    public var idempotent: Bool?

    /// Creates a request.
    public init(
        method: HTTPMethod = .get,
        url: String,
        headers: HTTPHeaders = [:],
        body: [UInt8] = [],
        connectTimeout: Duration? = nil,
        timeout: Duration? = nil,
        retryPolicy: RetryPolicy? = nil,
        idempotent: Bool? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.retryPolicy = retryPolicy
        self.idempotent = idempotent
    }

    /// Whether this request may be retried.
    public var isIdempotent: Bool { idempotent ?? method.isIdempotent }

    /// Sets the body to `value` encoded as JSON and `Content-Type: application/json`.
    /// - Throws: the encoder's error.
    public mutating func setJSONBody(_ value: some Encodable, encoder: JSONEncoder = JSONEncoder()) throws {
        body = Array(try encoder.encode(value))
        headers.replaceOrAdd(name: "Content-Type", value: "application/json")
    }
}
