import HTTPClient
import SandboxKit

/// Delivers the sandbox's webhooks with the project's HTTP client. One
/// attempt per call: the sandbox runs the provider's own retry schedule.
struct CurlWebhookTransport: WebhookTransport {
    let client: HTTPClient

    func post(url: String, headers: [(String, String)], body: [UInt8]) async throws -> Int {
        var request = HTTPClientRequest(method: .post, url: url, headers: HTTPHeaders(headers), body: body)
        request.retryPolicy = RetryPolicy.none
        request.timeout = .seconds(10)
        return try await client.execute(request).status
    }
}
