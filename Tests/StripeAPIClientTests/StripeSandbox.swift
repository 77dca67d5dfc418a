import Foundation
import HTTPClient
import JSONCodec
import Providers
import SandboxKit
import SandboxServer
import ServiceSettings
import Providers
import ProviderConfiguration
import Telemetry

/// The provider sandbox, served in this process on a free port for one test,
/// with its own Stripe key, so tests run in parallel without sharing state.
struct StripeSandbox {
    static let secretKey = "sk_test_stripe_api_4c1e"

    let server: ProviderSandboxServer
    let baseURL: String

    /// Starts a sandbox, runs `body`, and shuts it down whatever happens.
    static func with<T>(_ body: (StripeSandbox) async throws -> T) async throws -> T {
        let configuration = SandboxConfiguration(stripe: StripeSettings(secretKey: secretKey, retrySchedule: []))
        let server = try ProviderSandboxServer(
            settings: ProviderSandboxSettings(sandbox: configuration, port: 0), logger: Logger(service: "stripe-api-tests", minimumLevel: .error))
        let port = try server.start()
        let sandbox = StripeSandbox(server: server, baseURL: "http://127.0.0.1:\(port)")
        do {
            let result = try await body(sandbox)
            await server.shutdown()
            return result
        } catch {
            await server.shutdown()
            throw error
        }
    }

    /// Fast retries so tests do not wait on backoff.
    static let quickRetry = RetryPolicy(
        maxAttempts: 3, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50), maxRetryAfter: .seconds(3),
        retryableStatuses: [429, 500, 502, 503, 504])

    func configuration(secretKey: String = Self.secretKey) -> StripeConfiguration {
        StripeConfiguration(
            secretKey: Secret(secretKey), apiBaseURL: baseURL + "/stripe", successURL: "https://app.example/done",
            portalReturnURL: "https://app.example/account")
    }

    /// A client with its own HTTP client (`timeout` per attempt).
    func client(secretKey: String = Self.secretKey, pageSize: Int = 100, timeout: Duration = .seconds(10)) -> StripeClient {
        StripeClient(
            provider: StripeClientTests.provider, configuration: configuration(secretKey: secretKey),
            httpClient: HTTPClient(configuration: HTTPClientConfiguration(timeout: timeout)), pageSize: pageSize, retryPolicy: Self.quickRetry)
    }

    /// A call to the sandbox itself: its controls under `/_sandbox`, or the emulated API as any caller would make it.
    func call(_ method: HTTPMethod, _ path: String, json: String? = nil) async throws -> JSONCodec.JSONValue {
        var request = HTTPClientRequest(
            method: method, url: baseURL + path, headers: ["Authorization": "Bearer \(Self.secretKey)", "Content-Type": "application/json"])
        if let json { request.body = Array(json.utf8) }
        let response = try await HTTPClient().execute(request)
        guard response.isSuccess else { throw CallFailed(path: path, status: response.status, body: response.bodyString) }
        return try JSONCodec.JSONValue.parse(response.body)
    }

    struct CallFailed: Error, CustomStringConvertible {
        let path: String, status: Int, body: String
        var description: String { "sandbox \(path) answered \(status): \(body.prefix(300))" }
    }
}
