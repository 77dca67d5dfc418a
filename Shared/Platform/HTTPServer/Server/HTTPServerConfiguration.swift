/// Limits and network settings of an ``HTTPServer``; every property has a safe default.
public struct HTTPServerConfiguration: Sendable {
    /// IPv4 address to listen on: `127.0.0.1` (default, tests) or `0.0.0.0` (services).
    public var bindAddress: String = "127.0.0.1"
    /// TCP port; 0 picks a free one, read back with ``HTTPServer/port``.
    public var port: UInt16 = 0
    /// libmicrohttpd worker threads (each runs its own epoll loop). Handlers never block
    /// them: async work runs on Swift tasks while the connection is suspended.
    public var threadPoolSize: Int = 2
    /// Open connections at most (`MHD_OPTION_CONNECTION_LIMIT`); further ones are closed at accept.
    public var maxConnections: Int = 1024
    /// Open connections per client IP (`MHD_OPTION_PER_IP_CONNECTION_LIMIT`); 0 means no limit.
    /// Keeps one pathological client from taking every slot.
    public var maxConnectionsPerIP: Int = 256
    /// Seconds a connection may stay idle (slow or silent clients are cut off;
    /// `MHD_OPTION_CONNECTION_TIMEOUT`). Does not apply while a handler runs.
    public var connectionTimeoutSeconds: Int = 30
    /// Largest accepted request body; larger ones get 413 (early when `Content-Length` says so).
    public var maxBodyBytes: Int = 1 << 20
    /// Memory pool of one connection (`MHD_OPTION_CONNECTION_MEMORY_LIMIT`). It holds the
    /// request line, all header fields and the read buffer, so it bounds the header size:
    /// a larger header block is refused by libmicrohttpd itself, with its own HTML 431
    /// (see ``HTTPServer``). The default, 96 KiB, holds every header block the gateway
    /// forwards (nginx refuses more than four 16 KB header buffers itself, in the API's
    /// JSON error shape), so behind the gateway that HTML never reaches a client; a
    /// header block of about 95 KB (less 50 bytes per line) is the most it takes. The
    /// pool is mapped lazily, but libmicrohttpd clears it between keep-alive requests,
    /// which costs about 40 µs per MiB.
    public var connectionMemoryLimit: Int = 96 * 1024
    /// How long an async handler may run before the client gets 504 and its task is cancelled.
    /// Needed because libmicrohttpd never times out a suspended connection.
    public var handlerTimeout: Duration = .seconds(30)
    /// On shutdown, how long in-flight requests may take before they are answered with 503.
    public var shutdownGracePeriod: Duration = .seconds(10)
    /// Pending connections the kernel queues before `accept`.
    public var listenBacklog: Int = 1024
    /// Told the request path (without query) of every request refused with 413 because
    /// its body exceeds ``maxBodyBytes``. Those requests never reach a handler, so this is
    /// how a service counts them in its own metrics. Runs on a libmicrohttpd thread: keep
    /// it short and non-blocking. Default `nil`.
    public var bodyTooLargeObserver: (@Sendable (_ path: String) -> Void)?

    public init() {}

    /// Checks values the C library would misread (zero limits, negative sizes).
    func validate() throws(HTTPServerError) {
        func require(_ condition: Bool, _ message: String) throws(HTTPServerError) {
            if !condition { throw HTTPServerError.invalidConfiguration(message) }
        }
        try require(threadPoolSize >= 1, "threadPoolSize must be at least 1")
        try require(maxConnections >= 1, "maxConnections must be at least 1")
        try require(maxConnectionsPerIP >= 0, "maxConnectionsPerIP must not be negative")
        try require(connectionTimeoutSeconds >= 0, "connectionTimeoutSeconds must not be negative")
        try require(maxBodyBytes >= 0, "maxBodyBytes must not be negative")
        try require(connectionMemoryLimit >= 4096, "connectionMemoryLimit must be at least 4096")
        try require(handlerTimeout > .zero, "handlerTimeout must be positive")
        try require(listenBacklog >= 1, "listenBacklog must be at least 1")
    }
}

/// Why an ``HTTPServer`` could not start.
public enum HTTPServerError: Error, Sendable, Equatable {
    case invalidConfiguration(String)
    /// libmicrohttpd refused to start (address in use, bad bind address, out of resources).
    case startFailed(address: String, port: UInt16)
    case alreadyStarted
}
