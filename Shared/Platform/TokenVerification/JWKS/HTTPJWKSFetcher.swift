import Foundation
import HTTPClient

/// Fetches JWKS documents with the shared libcurl client: one GET, no
/// retries and no redirects (the key set schedules its own retries, and keys
/// come only from the configured URL), within the policy's timeout and size bound.
public struct HTTPJWKSFetcher: JWKSFetching {
    let client: HTTPClient
    let timeout: Duration

    /// - Parameters:
    ///   - policy: the timeout and response size bound.
    ///   - client: the client to use; nil for one of its own, configured from `policy`
    ///     (the size bound is a client setting, so a shared client must already have it).
    public init(policy: JWKSPolicy = JWKSPolicy(), client: HTTPClient? = nil) {
        self.timeout = policy.fetchTimeout
        self.client =
            client
            ?? HTTPClient(
                configuration: HTTPClientConfiguration(
                    connectTimeout: min(.seconds(3), policy.fetchTimeout), timeout: policy.fetchTimeout,
                    maxResponseBodySize: policy.maximumResponseBytes, retryPolicy: .none, maxConnectionsPerHost: 2, maxIdleConnections: 4,
                    followRedirects: false, userAgent: "storefront-jwks/1"))
    }

    public func fetch(_ url: URL) async throws(JWKSFetchError) -> JWKSDocument {
        let request = HTTPClientRequest(
            method: .get, url: url.absoluteString, headers: ["Accept": "application/jwk-set+json, application/json"], timeout: timeout,
            retryPolicy: RetryPolicy.none)
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request)
        } catch let error as HTTPClientError {
            switch error {
            case .timeout: throw .timeout
            case .bodyTooLarge(let limit): throw .tooLarge(limit: limit)
            default: throw .unreachable(error.description)
            }
        } catch {
            throw .unreachable("fetch cancelled")
        }
        guard response.status == 200 else { throw .status(response.status) }
        return JWKSDocument(
            body: response.body, maxAge: CacheLifetime.maxAge(cacheControl: response.headers["Cache-Control"], age: response.headers["Age"]))
    }
}
