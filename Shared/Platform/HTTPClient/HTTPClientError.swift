/// Why an HTTP exchange failed.
///
/// Descriptions never include request headers (so never an `Authorization`
/// value) nor URLs (which may carry credentials); `.status` carries the
/// response body, which is what the server chose to send back.
public enum HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The connect timeout or the total timeout elapsed.
    case timeout
    /// Nothing accepted the connection (or the host was unreachable).
    case connectionRefused
    /// The host name did not resolve.
    case dns
    /// TLS handshake or certificate verification failed.
    case tls(String)
    /// The response body exceeded the configured maximum.
    case bodyTooLarge(limit: Int)
    /// The URL could not be parsed or uses a scheme other than http/https.
    case invalidURL
    /// A header name or value contains characters that would corrupt the request.
    case invalidHeader(name: String)
    /// Any other libcurl failure, with its `CURLcode` and message.
    case transport(code: Int, message: String)
    /// The server answered with a non-2xx status (see ``HTTPClientResponse/ensureSuccess()``).
    case status(code: Int, body: String)
    /// The client was shut down before the request finished.
    case shutdown

    public var description: String {
        switch self {
        case .timeout: "HTTP request timed out"
        case .connectionRefused: "HTTP connection refused"
        case .dns: "HTTP host name did not resolve"
        case .tls(let message): "HTTP TLS failure: \(message)"
        case .bodyTooLarge(let limit): "HTTP response body exceeded \(limit) bytes"
        case .invalidURL: "invalid HTTP URL"
        case .invalidHeader(let name): "invalid HTTP header \(name.prefix(64))"
        case .transport(let code, let message): "HTTP transport error \(code): \(message)"
        case .status(let code, let body): "HTTP status \(code): \(body.prefix(512))"
        case .shutdown: "HTTP client shut down"
        }
    }

    /// Whether the failure may be transient, so that an idempotent request may be repeated.
    public var isRetryable: Bool {
        switch self {
        case .timeout, .connectionRefused, .dns: true
        // CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR:
        // the connection broke mid-exchange (e.g. a reused keep-alive connection the
        // server had just closed).
        case .transport(let code, _): [18, 52, 55, 56].contains(code)
        default: false
        }
    }
}
