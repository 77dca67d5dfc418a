/// Client-wide settings; every property has a default.
public struct HTTPClientConfiguration: Sendable {
    /// Time allowed to establish a connection (TCP + TLS). Default 5 s.
    public var connectTimeout: Duration
    /// Time allowed for one whole attempt (connect, send, receive). Default 30 s.
    public var timeout: Duration
    /// The largest response body accepted; larger ones fail with `.bodyTooLarge`. Default 10 MiB.
    public var maxResponseBodySize: Int
    /// The largest request body accepted. Default 10 MiB.
    public var maxRequestBodySize: Int
    /// Retry policy for requests that do not set their own. Default ``RetryPolicy/default``.
    public var retryPolicy: RetryPolicy
    /// Open connections per host; further transfers queue inside libcurl. Default 32.
    public var maxConnectionsPerHost: Int
    /// Idle connections kept for reuse. Default 64.
    public var maxIdleConnections: Int
    /// Whether to follow redirects (at most 5). Default `false`: API clients should see them.
    public var followRedirects: Bool
    /// `User-Agent` sent unless the request sets one.
    public var userAgent: String

    /// Creates a configuration.
    public init(
        connectTimeout: Duration = .seconds(5),
        timeout: Duration = .seconds(30),
        maxResponseBodySize: Int = 10 << 20,
        maxRequestBodySize: Int = 10 << 20,
        retryPolicy: RetryPolicy = .default,
        maxConnectionsPerHost: Int = 32,
        maxIdleConnections: Int = 64,
        followRedirects: Bool = false,
        userAgent: String = "storefront-httpclient/1"
    ) {
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.maxResponseBodySize = maxResponseBodySize
        self.maxRequestBodySize = maxRequestBodySize
        self.retryPolicy = retryPolicy
        self.maxConnectionsPerHost = maxConnectionsPerHost
        self.maxIdleConnections = maxIdleConnections
        self.followRedirects = followRedirects
        self.userAgent = userAgent
    }
}
