import ServiceSettings
import Foundation
import HTTPClient
import BillingModel
import JSONCodec
import ProviderConfiguration
import Providers
import SandboxKit
import SandboxServer
import Telemetry
import Webhooks

/// A private provider sandbox served on a real port (0 = any free one) for one
/// test, with its own keys, so tests run in parallel without sharing state.
struct LiveSandbox {
    static let lsKey = "ls_test_live_key_7f3a"
    static let lsSecret = "ls_live_webhook_secret_19c"
    static let psKey = "sk_test_live_secret_52d1"

    let server: ProviderSandboxServer
    let baseURL: String
    let http = HTTPClient()

    /// Starts a sandbox, runs `body`, and shuts it down whatever happens.
    static func with<T>(rateLimit: RateLimitSettings? = nil, _ body: (LiveSandbox) async throws -> T) async throws -> T {
        let configuration = SandboxConfiguration(
            lemonSqueezy: LemonSqueezySettings(apiKey: lsKey, webhookSecret: lsSecret, retrySchedule: []),
            paystack: PaystackSettings(secretKey: psKey, retrySchedule: []),
            rateLimit: rateLimit)
        let server = try ProviderSandboxServer(
            settings: ProviderSandboxSettings(sandbox: configuration, port: 0),
            logger: Logger(service: "providers-tests", minimumLevel: .error))
        let port = try server.start()
        let sandbox = LiveSandbox(server: server, baseURL: "http://127.0.0.1:\(port)")
        do {
            let result = try await body(sandbox)
            await server.shutdown()
            return result
        } catch {
            await server.shutdown()
            throw error
        }
    }

    var lemonSqueezyConfiguration: LemonSqueezyConfiguration {
        LemonSqueezyConfiguration(
            apiKey: Secret(Self.lsKey), storeID: "1", webhookSecret: Secret(Self.lsSecret), apiBaseURL: baseURL + "/lemonsqueezy")
    }

    var paystackConfiguration: PaystackConfiguration {
        PaystackConfiguration(secretKey: Secret(Self.psKey), apiBaseURL: baseURL + "/paystack")
    }

    /// Fast retries so tests do not wait on backoff.
    static let quickRetry = RetryPolicy(
        maxAttempts: 3, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50), maxRetryAfter: .seconds(3),
        retryableStatuses: [429, 500, 502, 503, 504])

    func lemonSqueezy(pageSize: Int = 50, apiKey: String? = nil, retry: RetryPolicy = quickRetry) -> LemonSqueezyClient {
        var configuration = lemonSqueezyConfiguration
        if let apiKey { configuration.apiKey = Secret(apiKey) }
        return LemonSqueezyClient(configuration: configuration, httpClient: http, pageSize: pageSize, retryPolicy: retry)
    }

    func paystack(pageSize: Int = 50, secretKey: String? = nil, retry: RetryPolicy = quickRetry) -> PaystackClient {
        var configuration = paystackConfiguration
        if let secretKey { configuration.secretKey = Secret(secretKey) }
        return PaystackClient(configuration: configuration, httpClient: http, pageSize: pageSize, retryPolicy: retry)
    }

    /// `POST /_sandbox/…` (the sandbox's test controls, e.g. paying a checkout).
    func control(_ path: String, _ fields: [String: String] = [:]) async throws -> JSONCodec.JSONValue {
        let body = try JSONSerialization.data(withJSONObject: fields)
        let response = try await http.post(baseURL + "/_sandbox" + path, headers: ["Content-Type": "application/json"], body: Array(body))
        guard response.isSuccess else { throw SandboxCallFailed(path: path, status: response.status, body: response.bodyString) }
        return try JSONCodec.JSONValue.parse(response.body)
    }

    /// A raw authorised GET against the emulated API, to see what the client actually sent.
    func rawGet(_ path: String, key: String) async throws -> JSONCodec.JSONValue {
        let response = try await http.get(baseURL + path, headers: ["Authorization": "Bearer \(key)", "Accept": "application/vnd.api+json"])
        guard response.isSuccess else { throw SandboxCallFailed(path: path, status: response.status, body: response.bodyString) }
        return try JSONCodec.JSONValue.parse(response.body)
    }

    struct SandboxCallFailed: Error, CustomStringConvertible {
        let path: String, status: Int, body: String
        var description: String { "sandbox \(path) answered \(status): \(body.prefix(300))" }
    }
}
