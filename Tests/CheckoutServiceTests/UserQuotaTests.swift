import ServiceSettings
import Catalog
import CryptoPrimitives
import Foundation
import HTTPServer
import BillingModel
import Postgres
import Providers
import ServiceRuntime
import Synchronization
import Telemetry
import TestSupport
import Testing
@testable import CheckoutService

/// Per-user quotas: the window arithmetic on explicit instants, the settings,
/// and the 429 through the router with an in-memory quota store. No server:
/// the pool points at a port nothing listens on, and a refused request must
/// be answered before anything reaches it. `QuotaTests` (integration) covers
/// the PostgreSQL store, replicas and replays.
@Suite struct UserQuotaTests {
    /// The store's contract in memory: fixed windows, all or nothing.
    final class MemoryQuotaStore: UserQuotaStore {
        let counts = Mutex<[String: Int]>([:])

        func consume(
            user: String, action: UserQuotaPolicy.Action, limits: [UserQuotaPolicy.Limit], at now: Date
        ) async throws
            -> UserQuotaPolicy.Limit?
        {
            counts.withLock { counts in
                let keys = limits.map { "\(user)|\(action.rawValue)|\($0.window)|\(QuotaWindow.start(of: now, window: $0.window))" }
                for (key, limit) in zip(keys, limits) where counts[key, default: 0] >= limit.requests { return limit }
                for key in keys { counts[key, default: 0] += 1 }
                return nil
            }
        }

    }

    static let secret = Array("user-quota-tests-hs256-secret-0123456789".utf8)
    static let logger = Logger(service: "user-quota-tests", minimumLevel: .critical)

    // MARK: - Arithmetic

    @Test func windowsAlignToTheEpochAndRetryAfterIsTheRestOfTheWindow() {
        let minute = Duration.seconds(60)
        let t = Date(timeIntervalSince1970: 1_800_000_017.25) // 17.25 s into a minute
        #expect(QuotaWindow.start(of: t, window: minute) == Date(timeIntervalSince1970: 1_800_000_000))
        #expect(QuotaWindow.retryAfter(at: t, window: minute) == 43, "42.75 s rounded up")
        #expect(QuotaWindow.retryAfter(at: Date(timeIntervalSince1970: 1_800_000_059.9), window: minute) == 1)
        #expect(QuotaWindow.retryAfter(at: Date(timeIntervalSince1970: 1_800_000_000), window: minute) == 60)
        let hour = Duration.seconds(3600)
        #expect(QuotaWindow.start(of: t, window: hour) == Date(timeIntervalSince1970: 1_800_000_000), "1_800_000_000 is a whole hour")
        #expect(QuotaWindow.retryAfter(at: t, window: hour) == 3583, "3582.75 s rounded up")
    }

    @Test func thePolicyListsLongestWindowsFirstAndDropsLimitsSetToZero() {
        let policy = UserQuotaPolicy()
        #expect(policy.limits(for: .createCheckout).map(\.requests) == [60, 10])
        #expect(policy.limits(for: .createCheckout).map(\.window) == [.seconds(3600), .seconds(60)])
        #expect(policy.limits(for: .portal) == [UserQuotaPolicy.Limit(requests: 20, window: .seconds(60))])
        #expect(policy.limits(for: .subscriptionChange) == [UserQuotaPolicy.Limit(requests: 10, window: .seconds(60))])
        #expect(UserQuotaPolicy(createPerHour: 0).limits(for: .createCheckout).map(\.requests) == [10])
        #expect(UserQuotaPolicy(portalPerMinute: 0).limits(for: .portal).isEmpty)
    }

    @Test func quotasAreReadFromTheEnvironment() throws {
        var reader = ConfigReader(
            Environment([
                "CHECKOUT_QUOTA_CREATE_PER_MINUTE": "3", "CHECKOUT_QUOTA_CREATE_PER_HOUR": "0", "CHECKOUT_QUOTA_PORTAL_PER_MINUTE": "7",
                "CHECKOUT_QUOTA_CANCEL_RESUME_PER_MINUTE": "-1",
            ]))
        let configuration = CheckoutConfiguration.fromEnvironment(&reader)
        #expect(reader.problems.map(\.variable) == ["CHECKOUT_QUOTA_CANCEL_RESUME_PER_MINUTE"])
        #expect(configuration.quotas.createPerMinute == 3 && configuration.quotas.createPerHour == 0)
        #expect(configuration.quotas.portalPerMinute == 7 && configuration.quotas.cancelResumePerMinute == 10)
    }

    @Test func aRefusalIsCountedNowhere() async throws {
        let store = MemoryQuotaStore()
        let t = Date(timeIntervalSince1970: 1_800_000_000)
        let limits = [UserQuotaPolicy.Limit(requests: 3, window: .seconds(3600)), UserQuotaPolicy.Limit(requests: 1, window: .seconds(60))]
        #expect(try await store.consume(user: "u", action: .createCheckout, limits: limits, at: t) == nil)
        #expect(try await store.consume(user: "u", action: .createCheckout, limits: limits, at: t) == limits[1])
        // The refused one used none of the hour: two more minutes, two more checkouts, then the hour refuses.
        #expect(try await store.consume(user: "u", action: .createCheckout, limits: limits, at: t + 60) == nil)
        #expect(try await store.consume(user: "u", action: .createCheckout, limits: limits, at: t + 120) == nil)
        #expect(try await store.consume(user: "u", action: .createCheckout, limits: limits, at: t + 180) == limits[0])
    }

    // MARK: - Through the router

    static func token(_ sub: String) throws -> String {
        try JWTSigner(hs256Secret: secret).sign([
            "sub": .string(sub), "email": .string("\(sub)@example.com"), "exp": .int(Int(Date().timeIntervalSince1970 + 600)),
        ])
    }

    static func request(
        _ app: CheckoutApplication, _ method: HTTPMethod, _ path: String, user: String, json: String?
    ) async throws
        -> HTTPResponse
    {
        var headers: HTTPHeaders = ["Authorization": "Bearer \(try token(user))"]
        if json != nil { headers.add(name: "Content-Type", value: "application/json") }
        let request = try HTTPRequest(method: method, target: path, headers: headers, body: Array((json ?? "").utf8))
        return await app.respond(to: request, logger: logger)
    }

    @Test func overQuotaIsA429WithRetryAfterInTheErrorShapeForThatUserOnly() async throws {
        let store = MemoryQuotaStore()
        let metrics = MetricsRegistry()
        // 12:00:15 on the injected clock: every minute window has 45 s left.
        let instant = Date(timeIntervalSince1970: 1_800_000_015)
        let pool = PostgresPool(configuration: try PostgresConfiguration(url: "postgresql://nobody@127.0.0.1:1/none?connect_timeout=1"))
        let source = CheckoutCatalogTests.FakeCatalogSource(.lemonsqueezy, items: [CheckoutCatalogTests.monthly])
        let app = buildCheckoutApplication(
            configuration: CheckoutConfiguration(
                quotas: UserQuotaPolicy(createPerMinute: 2, createPerHour: 0, portalPerMinute: 1, cancelResumePerMinute: 1)),
            auth: .jwt(try JWTVerifier(key: .hs256(secret: Self.secret))), ownership: TestOwnership.proof, providers: ProviderRegistry(providers: []),
            catalogSources: [source], pool: pool, publisher: CheckoutCatalogTests.DiscardingPublisher(), logger: Self.logger, metrics: metrics,
            quotaStore: store, now: { instant })
        #expect(await app.catalog.refresh().ok)

        func expectRefused(_ response: HTTPResponse, _ what: String) throws {
            #expect(response.status == .tooManyRequests, "\(what): \(String(decoding: response.body, as: UTF8.self))")
            #expect(response.headers["Retry-After"] == "45", "\(what)")
            let body = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            #expect(body["success"] as? Bool == false && body["code"] as? String == "rate_limited" && (body["error"] as? String)?.isEmpty == false)
        }

        let create = #"{"variantId":"ls_101"}"#
        // Within quota create-checkout reaches the provider registry (none here: 404); the third is refused.
        for _ in 0..<2 { #expect(try await Self.request(app, .post, "/api/create-checkout", user: "flooder", json: create).status == .notFound) }
        try expectRefused(try await Self.request(app, .post, "/api/create-checkout", user: "flooder", json: create), "third create")
        // Another user is unaffected.
        #expect(try await Self.request(app, .post, "/api/create-checkout", user: "bystander", json: create).status == .notFound)

        // Portal, cancel and resume: a full window answers 429 before anything reads the database.
        let key = { (user: String, action: UserQuotaPolicy.Action) in
            "\(user)|\(action.rawValue)|\(Duration.seconds(60))|\(QuotaWindow.start(of: instant, window: .seconds(60)))"
        }
        store.counts.withLock {
            $0[key("flooder", .portal)] = 1
            $0[key("flooder", .subscriptionChange)] = 1
        }
        try expectRefused(try await Self.request(app, .get, "/api/subscription/portal?subscription_code=1", user: "flooder", json: nil), "portal")
        for action in ["cancel", "resume"] {
            try expectRefused(
                try await Self.request(app, .post, "/api/subscription/\(action)", user: "flooder", json: #"{"subscription_code":"1"}"#), action)
        }
        #expect(metrics.renderPrometheus().contains(#"checkout_quota_refusals_total{action="create_checkout"} 1"#))
        #expect(metrics.renderPrometheus().contains(#"checkout_quota_refusals_total{action="subscription_change"} 2"#))
        await pool.close()
    }
}
