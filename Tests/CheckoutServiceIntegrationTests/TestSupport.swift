import ServiceSettings
import Catalog
import CheckoutService
import CryptoPrimitives
import Foundation
import HTTPClient
import HTTPServer
import JSONCodec
import Kafka
import BillingModel
import Postgres
import ProjectionStore
import ProviderConfiguration
import Providers
import SandboxKit
import SandboxServer
import Telemetry
import TestSupport
import Testing
import Webhooks

/// Names no other test (or earlier run) uses, since suites share the servers.
enum TestNames {
    static func unique(_ prefix: String) -> String {
        "\(prefix)_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased())"
    }
}

/// A fresh database per test with the projection schema and the checkout's own
/// migrations, dropped when `body` returns or throws.
enum TestDatabase {
    static func with<T>(_ body: (PostgresPool) async throws -> T) async throws -> T {
        try await FreshDatabase.with(prefix: "test_checkout", maximumConnections: 8) { pool, _ in
            try await ProjectionSchema.migrate(pool: pool)
            let applied = try await CheckoutSchema.migrate(pool: pool)
            #expect(applied == CheckoutSchema.migrations.map(\.version))
            return try await body(pool)
        }
    }
}

/// One checkout application wired to a private provider sandbox, a fresh
/// database and the shared broker, with HS256 tokens.
struct Harness {
    static let lsKey = "ls_test_checkout_key_41"
    static let lsSecret = "ls_checkout_webhook_secret_7"
    static let psKey = "sk_test_checkout_secret_93"
    static let jwtSecret = Array("checkout-tests-hs256-secret-0123456789abcdef".utf8)

    let app: CheckoutApplication
    /// What `app` was built from, so a test can build a second replica beside it.
    let registry: ProviderRegistry
    let publisher: KafkaRecordPublisher
    let sandbox: ProviderSandboxServer
    let sandboxURL: String
    let pool: PostgresPool
    let http = HTTPClient()
    let logger = Logger(service: "checkout-tests", minimumLevel: .critical)

    /// - Parameters:
    ///   - quotas: the per-user quotas (generous by default, so other suites never meet them).
    ///   - now: the application's clock.
    static func with<T>(
        rateLimit: RateLimitSettings? = nil, auth: AuthConfiguration? = nil, loadCatalog: Bool = true,
        providerTimeout: Duration = CheckoutConfiguration().providerTimeout,
        quotas: UserQuotaPolicy = UserQuotaPolicy(createPerMinute: 1000, createPerHour: 0, portalPerMinute: 1000, cancelResumePerMinute: 1000),
        now: @escaping @Sendable () -> Date = { Date() },
        _ body: (Harness) async throws -> T
    ) async throws -> T {
        let brokers = try TestEnvironment.kafkaBrokers()
        return try await TestDatabase.with { pool in
            try await with(
                brokers: brokers, pool: pool, rateLimit: rateLimit, auth: auth, loadCatalog: loadCatalog, providerTimeout: providerTimeout,
                quotas: quotas, now: now, body)
        }
    }

    private static func with<T>(
        brokers: [String], pool: PostgresPool, rateLimit: RateLimitSettings?, auth: AuthConfiguration?, loadCatalog: Bool,
        providerTimeout: Duration, quotas: UserQuotaPolicy, now: @escaping @Sendable () -> Date, _ body: (Harness) async throws -> T
    ) async throws -> T {
        let sandboxConfiguration = SandboxConfiguration(
            lemonSqueezy: LemonSqueezySettings(apiKey: lsKey, webhookSecret: lsSecret, retrySchedule: []),
            paystack: PaystackSettings(secretKey: psKey, retrySchedule: []),
            rateLimit: rateLimit)
        let sandbox = try ProviderSandboxServer(
            settings: ProviderSandboxSettings(sandbox: sandboxConfiguration, port: 0),
            logger: Logger(service: "checkout-tests-sandbox", minimumLevel: .error))
        let port = try sandbox.start()
        let baseURL = "http://127.0.0.1:\(port)"
        let client = KafkaClientConfiguration(bootstrapServers: brokers, clientID: "checkout-tests")
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: client))
        do {
            try await KafkaAdmin(configuration: client).createTopics(
                [Topics.checkouts, Topics.commands].map { KafkaTopicSpecification(name: $0, partitions: 6) })
            let http = HTTPClient()
            let retry = RetryPolicy(
                maxAttempts: 2, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50), maxRetryAfter: .seconds(1),
                retryableStatuses: [429, 500, 502, 503, 504])
            let ls = LemonSqueezyClient(
                configuration: LemonSqueezyConfiguration(
                    apiKey: Secret(lsKey), storeID: "1", webhookSecret: Secret(lsSecret), apiBaseURL: baseURL + "/lemonsqueezy"),
                httpClient: http, retryPolicy: retry)
            let ps = PaystackClient(
                configuration: PaystackConfiguration(secretKey: Secret(psKey), apiBaseURL: baseURL + "/paystack"),
                httpClient: http, retryPolicy: retry)
            let registry = ProviderRegistry(providers: [ls, ps])
            let publisher = KafkaRecordPublisher(producer: producer)
            var configuration = CheckoutConfiguration(redirectURL: "https://app.example.com/done", idempotencyWait: .seconds(20), quotas: quotas)
            configuration.providerTimeout = providerTimeout
            let app = buildCheckoutApplication(
                configuration: configuration,
                auth: try auth ?? .jwt(JWTVerifier(key: .hs256(secret: jwtSecret))), ownership: TestOwnership.proof,
                providers: registry, pool: pool, publisher: publisher,
                logger: Logger(service: "checkout-tests", minimumLevel: .critical), now: now)
            if loadCatalog {
                let failures = await app.catalog.refresh().failures
                #expect(failures.isEmpty, "catalog load failed: \(failures)")
            }
            let harness = Harness(app: app, registry: registry, publisher: publisher, sandbox: sandbox, sandboxURL: baseURL, pool: pool)
            let result = try await body(harness)
            await cleanup(sandbox, producer)
            return result
        } catch {
            await cleanup(sandbox, producer)
            throw error
        }
    }

    private static func cleanup(_ sandbox: ProviderSandboxServer, _ producer: KafkaProducer) async {
        await sandbox.shutdown()
        _ = await producer.shutdown()
    }

    // MARK: - Tokens

    static func token(
        sub: String, email: String?, emailVerified: Bool = false, expiresIn: TimeInterval = 600,
        secret: [UInt8] = jwtSecret
    ) throws -> String {
        var claims: [String: JOSEValue] = ["sub": .string(sub), "exp": .int(Int(Date().timeIntervalSince1970 + expiresIn))]
        if let email { claims["email"] = .string(email) }
        if emailVerified { claims["email_verified"] = .bool(true) }
        return try JWTSigner(hs256Secret: secret).sign(claims)
    }

    // MARK: - Requests

    func request(
        _ method: HTTPMethod, _ target: String, token: String?, json: String? = nil, headers extra: [(String, String)] = []
    ) async throws -> HTTPResponse {
        var headers = HTTPHeaders()
        if let token { headers.add(name: "Authorization", value: "Bearer \(token)") }
        if json != nil { headers.add(name: "Content-Type", value: "application/json") }
        for (name, value) in extra { headers.add(name: name, value: value) }
        let request = try HTTPRequest(method: method, target: target, headers: headers, body: Array((json ?? "").utf8))
        return await app.respond(to: request, logger: logger)
    }

    func createCheckout(token: String?, email: String?, variant: String, product: String? = nil, key: String? = nil) async throws -> HTTPResponse {
        var fields = ["variantId": variant]
        if let email { fields["customerEmail"] = email }
        if let product { fields["productId"] = product }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]), as: UTF8.self)
        return try await request(.post, "/api/create-checkout", token: token, json: json, headers: key.map { [("Idempotency-Key", $0)] } ?? [])
    }

    /// `POST /_sandbox/…` (pay a checkout and the like).
    func control(_ path: String, _ fields: [String: String] = [:]) async throws -> [String: Any] {
        let body = try JSONSerialization.data(withJSONObject: fields)
        let response = try await http.post(sandboxURL + "/_sandbox" + path, headers: ["Content-Type": "application/json"], body: Array(body))
        guard response.isSuccess else {
            throw SandboxCallFailed(description: "sandbox \(path) answered \(response.status): \(response.bodyString.prefix(300))")
        }
        return try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] ?? [:]
    }

    struct SandboxCallFailed: Error, CustomStringConvertible { let description: String }
}

extension HTTPResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
    func json() throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] ?? [:]
    }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try JSONDecoder().decode(type, from: Data(body)) }
}

/// A value from a sandbox JSON answer as text (ids come as numbers or strings).
func text(_ value: Any?) -> String? {
    switch value {
    case let string as String: string
    case let number as NSNumber: number.stringValue
    default: nil
    }
}
