import Foundation

/// An HTTP/1.1 and HTTP/2 client over libcurl with keep-alive connection reuse,
/// bounded response bodies, and retries with backoff for idempotent requests.
///
/// One client is meant to be shared by the whole process: it is `Sendable`, every
/// method may be called from many tasks at once, and connections are reused
/// across them. Requests run on the client's own thread (see `CurlEngine`), never
/// on Swift's cooperative pool. Dropping the last reference stops that thread and
/// fails requests still in flight with ``HTTPClientError/shutdown``.
public final class HTTPClient: Sendable {
    /// The client-wide settings.
    public let configuration: HTTPClientConfiguration
    private let engine: CurlEngine

    /// Creates a client and starts its transfer thread.
    public init(configuration: HTTPClientConfiguration = HTTPClientConfiguration()) {
        self.configuration = configuration
        self.engine = CurlEngine(configuration: configuration)
    }

    deinit {
        engine.shutdown()
    }

    /// Sends `request`, retrying per its retry policy when it is idempotent, and
    /// returns the final response whatever its status (see ``HTTPClientResponse/ensureSuccess()``).
    ///
    /// A response with a retryable status (429, 502, 503, 504 by default) is retried;
    /// when attempts run out, that last response is returned rather than thrown.
    /// - Throws: ``HTTPClientError`` when no response could be obtained, or
    ///   `CancellationError` when the task is cancelled.
    public func execute(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        let policy = request.retryPolicy ?? configuration.retryPolicy
        let attempts = request.isIdempotent ? policy.maxAttempts : 1
        var attempt = 1
        while true {
            let delay: Duration
            do {
                let response = try await engine.perform(request)
                guard attempt < attempts, policy.retryableStatuses.contains(response.status) else { return response }
                if let header = response.headers["Retry-After"], let wanted = RetryPolicy.parseRetryAfter(header) {
                    // Waiting less than asked is likely to fail again; waiting longer
                    // than the cap stalls the caller: hand the response back instead.
                    guard wanted <= policy.maxRetryAfter else { return response }
                    delay = wanted
                } else {
                    delay = policy.backoff(beforeRetry: attempt)
                }
            } catch let error as HTTPClientError {
                guard attempt < attempts, error.isRetryable else { throw error }
                delay = policy.backoff(beforeRetry: attempt)
            }
            try await Task.sleep(for: delay)
            attempt += 1
        }
    }
}

// MARK: - Conveniences

extension HTTPClient {
    /// Sends a GET request.
    /// - Throws: as ``execute(_:)``.
    public func get(_ url: String, headers: HTTPHeaders = [:]) async throws -> HTTPClientResponse {
        try await execute(HTTPClientRequest(method: .get, url: url, headers: headers))
    }

    /// Sends a POST request with `body`.
    /// - Throws: as ``execute(_:)``.
    public func post(_ url: String, headers: HTTPHeaders = [:], body: [UInt8], idempotent: Bool? = nil) async throws -> HTTPClientResponse {
        try await execute(HTTPClientRequest(method: .post, url: url, headers: headers, body: body, idempotent: idempotent))
    }
}
