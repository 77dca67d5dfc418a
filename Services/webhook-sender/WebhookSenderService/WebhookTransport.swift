import Foundation
import HTTPClient

/// Sends one signed request: the seam between the dispatcher and the
/// network, so the dispatcher's rules are tested without a socket.
public protocol WebhookTransport: Sendable {
    /// POSTs `body` to `url` with `headers`.
    /// - Returns: the answer's status.
    /// - Throws: when no answer came (refused, timed out, too large an answer).
    func post(url: String, headers: HTTPHeaders, body: [UInt8]) async throws -> Int
}

/// The transport over ``HTTPClient`` (libcurl): one attempt per call (the
/// retry schedule is the dispatcher's), no redirects followed (a 3xx is a
/// failure the operator should see), bounded time and answer size.
public struct CurlWebhookTransport: WebhookTransport {
    let client: HTTPClient

    /// - Parameters:
    ///   - timeout: the whole attempt (`WEBHOOK_SENDER_TIMEOUT`).
    ///   - maxResponseBytes: a larger answer fails the attempt; receivers answer with little or nothing.
    public init(timeout: Duration, maxResponseBytes: Int = 64 << 10, userAgent: String = "storefront-webhooks/1") {
        client = HTTPClient(
            configuration: HTTPClientConfiguration(
                connectTimeout: min(timeout, .seconds(5)), timeout: timeout, maxResponseBodySize: maxResponseBytes, retryPolicy: .none,
                followRedirects: false, userAgent: userAgent))
    }

    public func post(url: String, headers: HTTPHeaders, body: [UInt8]) async throws -> Int {
        try await client.execute(HTTPClientRequest(method: .post, url: url, headers: headers, body: body, idempotent: false)).status
    }
}
