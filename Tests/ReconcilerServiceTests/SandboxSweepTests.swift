import Timing
import ServiceSettings
import Foundation
import HTTPClient
import BillingModel
import JSONCodec
import ProviderConfiguration
import Providers
@testable import ReconcilerService
import SandboxKit
import SandboxServer
import Synchronization
import Telemetry
import Testing
import Webhooks

/// A private provider sandbox on a real port, for the real clients.
struct PrivateSandbox {
    let server: ProviderSandboxServer
    let baseURL: String
    let http = HTTPClient()

    static func with<T>(_ body: (PrivateSandbox) async throws -> T) async throws -> T {
        let configuration = SandboxConfiguration(
            lemonSqueezy: LemonSqueezySettings(retrySchedule: []), paystack: PaystackSettings(retrySchedule: []))
        let server = try ProviderSandboxServer(settings: ProviderSandboxSettings(sandbox: configuration, port: 0), logger: Fixture.logger)
        let sandbox = PrivateSandbox(server: server, baseURL: "http://127.0.0.1:\(try server.start())")
        do {
            let result = try await body(sandbox)
            await server.shutdown()
            return result
        } catch {
            await server.shutdown()
            throw error
        }
    }

    /// The sandbox's default keys, as `scripts/stack.sh` configures the services.
    func settings(lemonSqueezyPerMinute: Int = 100_000, paystackPerMinute: Int = 100_000) -> ReconcilerProviderSettings {
        let providers = ProvidersConfiguration([
            LemonSqueezyConfiguration(
                apiKey: Secret("ls_test_sandbox_key"), storeID: "1", webhookSecret: Secret("ls_sandbox_webhook_secret"),
                apiBaseURL: baseURL + "/lemonsqueezy"),
            PaystackConfiguration(secretKey: Secret("sk_test_sandbox_secret"), apiBaseURL: baseURL + "/paystack"),
        ])
        return ReconcilerProviderSettings(
            providers: providers, localRequestsPerMinute: [.lemonsqueezy: lemonSqueezyPerMinute, .paystack: paystackPerMinute])
    }

    @discardableResult
    func control(_ path: String, _ json: String = "{}", method: HTTPMethod = .post) async throws -> JSONCodec.JSONValue {
        let response = try await http.execute(
            HTTPClientRequest(
                method: method, url: baseURL + "/_sandbox" + path,
                headers: ["Content-Type": "application/json"], body: Array(json.utf8)))
        try #require(response.isSuccess, "sandbox \(path) answered \(response.status): \(response.bodyString)")
        return try JSONCodec.JSONValue.parse(response.body)
    }

    func raw(_ path: String, key: String) async throws -> HTTPClientResponse {
        try await http.get(baseURL + path, headers: ["Authorization": "Bearer \(key)", "Accept": "application/json"])
    }
}

/// Counts what it is given and keeps the first few (big sweeps).
final class CountingPublisher: SnapshotPublisher, Sendable {
    private let state = Mutex<(count: Int, kept: [KeyedSnapshot])>((0, []))
    var count: Int { state.withLock { $0.count } }
    var kept: [KeyedSnapshot] { state.withLock { $0.kept } }
    func publish(_ snapshots: [KeyedSnapshot]) async throws {
        state.withLock { state in
            state.count += snapshots.count
            if state.kept.count < 500 { state.kept += snapshots.prefix(500 - state.kept.count) }
        }
    }
}

/// The real clients against the sandbox: single-object bodies byte for byte,
/// paging to the end, 429 within the budget, and a big sweep measured.
@Suite struct SandboxSweepTests {
    @Test func fetchedDocumentsAreTheProvidersBytesAndUnknownObjectsAreNotFound() async throws {
        try await PrivateSandbox.with { sandbox in
            let ls = try await sandbox.control("/lemonsqueezy/seed", #"{"subscriptions":1}"#)
            let ps = try await sandbox.control("/paystack/seed", #"{"subscriptions":1}"#)
            let source = sandbox.settings().makeSource(httpClient: sandbox.http, metrics: ReconcilerMetrics(registry: MetricsRegistry()))
            let id = try #require(ls["first"]?.string), code = try #require(ps["first"]?.string)

            let document = try await source.fetch(EntityRef(.lemonsqueezy, .subscription, id))
            #expect(document.body == (try await sandbox.raw("/lemonsqueezy/v1/subscriptions/\(id)", key: "ls_test_sandbox_key")).body)
            #expect(String(decoding: document.body, as: UTF8.self).contains(#"\/"#), "PHP-style escaped slashes survive")
            let order = try await source.fetch(EntityRef(.lemonsqueezy, .order, "1"))
            #expect(order.json["data", "type"]?.string == "orders")
            let subscription = try await source.fetch(EntityRef(.paystack, .subscription, code))
            #expect(subscription.body == (try await sandbox.raw("/paystack/subscription/\(code)", key: "sk_test_sandbox_secret")).body)
            let transaction = try await source.fetch(EntityRef(.paystack, .transaction, "sbxseed-1"))
            #expect(transaction.json["data", "status"]?.string == "success")

            for missing in [
                EntityRef(.lemonsqueezy, .subscription, "999999"), EntityRef(.lemonsqueezy, .order, "999999"),
                EntityRef(.paystack, .subscription, "SUB_missing"), EntityRef(.paystack, .transaction, "no-such-ref"),
            ] {
                do {
                    _ = try await source.fetch(missing)
                    Issue.record("\(missing) was found")
                } catch {
                    #expect((error as? ProviderError)?.kind == .notFound, "\(missing): \(error)")
                }
            }
        }
    }

    @Test func aSweepPagesEveryListToTheEndAndEachSnapshotIsTheSingleObjectAnswer() async throws {
        try await PrivateSandbox.with { sandbox in
            try await sandbox.control("/lemonsqueezy/seed", #"{"subscriptions":230}"#)
            try await sandbox.control("/paystack/seed", #"{"subscriptions":120}"#)
            let metrics = ReconcilerMetrics(registry: MetricsRegistry())
            let source = sandbox.settings().makeSource(httpClient: sandbox.http, metrics: metrics)
            let publisher = CountingPublisher()
            let sweeper = Sweeper(source: source, publisher: publisher, statuses: nil, logger: Fixture.logger)
            let ls = await sweeper.sweep(.lemonsqueezy, since: nil, trigger: .sweep, sweepID: "t")
            let ps = await sweeper.sweep(.paystack, since: nil, trigger: .sweep, sweepID: "t")
            #expect(ls.map(\.listed) == [230, 230] && ls.map(\.pages) == [3, 3])
            #expect(ps.map(\.listed) == [120, 120] && ps.map(\.pages) == [2, 2])
            #expect((ls + ps).allSatisfy { $0.failure == nil && $0.published == $0.listed })
            #expect(metrics.requests(.lemonsqueezy).current == 6 && metrics.requests(.paystack).current == 4, "one request per page")

            // A list item, wrapped, carries the same object the single-object endpoint answers.
            let snapshot = try #require(
                publisher.kept.first { $0.snapshot.entity == .subscription && $0.snapshot.provider == .lemonsqueezy }?.snapshot)
            let single = try await source.fetch(EntityRef(.lemonsqueezy, .subscription, snapshot.entityID))
            #expect(try JSONCodec.JSONValue.parse(snapshot.body.bytes)["data"] == single.json["data"])
            let psSnapshot = try #require(publisher.kept.first { $0.snapshot.provider == .paystack && $0.snapshot.entity == .subscription }?.snapshot)
            let psSingle = try await source.fetch(EntityRef(.paystack, .subscription, psSnapshot.entityID))
            #expect(try JSONCodec.JSONValue.parse(psSnapshot.body.bytes)["data"] == psSingle.json["data"])
            #expect(publisher.kept.first { $0.snapshot.provider == .paystack }?.key.hasPrefix("paystack:CUS_") == true)

            // Nothing changed since: the next sweep lists everything and publishes nothing.
            let again = await Sweeper(source: source, publisher: CountingPublisher(), statuses: nil, logger: Fixture.logger)
                .sweep(.lemonsqueezy, since: Date().addingTimeInterval(3600 * 24 * 365 * 5), trigger: .sweep, sweepID: "t2")
            #expect(again.map(\.published) == [0, 0] && again.map(\.listed) == [230, 230])
        }
    }

    @Test func aProviderThatAnswers429IsRetriedAfterItsRetryAfterAndTheBudgetHoldsEveryone() async throws {
        try await PrivateSandbox.with { sandbox in
            try await sandbox.control("/lemonsqueezy/seed", #"{"subscriptions":30}"#)
            // The sandbox refuses the next 2 requests with Retry-After: 1.
            try await sandbox.control("/faults", #"{"api_429_next":2,"api_429_provider":"lemonsqueezy","api_retry_after_seconds":1}"#)
            let metrics = ReconcilerMetrics(registry: MetricsRegistry())
            let source = sandbox.settings().makeSource(httpClient: sandbox.http, metrics: metrics)
            let clock = ContinuousClock()
            let start = clock.now
            let reports = await Sweeper(source: source, publisher: CountingPublisher(), statuses: nil, logger: Fixture.logger)
                .sweep(.lemonsqueezy, since: nil, trigger: .sweep, sweepID: "t")
            let elapsed = clock.now - start
            #expect(reports.allSatisfy { $0.failure == nil } && reports.map(\.listed) == [30, 30])
            #expect(metrics.rateLimited(.lemonsqueezy).current == 2)
            #expect(metrics.requests(.lemonsqueezy).current == 4, "2 refused + 2 pages")
            #expect(elapsed >= .seconds(2), "each 429 waited out its Retry-After: \(elapsed)")
            let stats = try await sandbox.control("/api-requests", method: .get)
            #expect(stats["lemonsqueezy", "rate_limited"]?.int64 == 2 && stats["lemonsqueezy", "total"]?.int64 == 4)
        }
    }

    @Test func theBudgetKeepsASweepUnderTheProvidersLimit() async throws {
        try await PrivateSandbox.with { sandbox in
            try await sandbox.control("/paystack/seed", #"{"subscriptions":10}"#)
            // The provider allows 8 requests per 4 s; the budget, 60 a minute (a burst of 3, then
            // one every 1.05 s), stays below that in any 4 s. Unpaced, 10 pages would hit it at once.
            try await sandbox.control("/faults", #"{"api_rate_limit":{"limit":8,"window_seconds":4}}"#)
            var settings = sandbox.settings(paystackPerMinute: 60)
            settings.pageSize = 2
            let metrics = ReconcilerMetrics(registry: MetricsRegistry())
            let reports = await Sweeper(
                source: settings.makeSource(httpClient: sandbox.http, metrics: metrics), publisher: CountingPublisher(),
                statuses: nil, logger: Fixture.logger
            )
            .sweep(.paystack, since: nil, trigger: .sweep, sweepID: "t")
            #expect(reports.map(\.listed) == [10, 10] && reports.allSatisfy { $0.failure == nil })
            #expect(metrics.rateLimited(.paystack).current == 0, "paced below the limit: no 429")
            #expect(metrics.requests(.paystack).current == 10)
        }
    }

    /// The sweep's cost for many subscriptions, against the sandbox's raw
    /// request rate measured in the same run (the same pages fetched with
    /// the bare HTTP client, no parsing, no snapshots). Size:
    /// `RECONCILER_SWEEP_BENCH_SUBSCRIPTIONS` (default 1 000; the README's
    /// figures are for 10 000).
    @Test func aSweepOfManySubscriptionsCostsOneRequestPerPage() async throws {
        let count = Int(ProcessInfo.processInfo.environment["RECONCILER_SWEEP_BENCH_SUBSCRIPTIONS"] ?? "") ?? 1000
        try await PrivateSandbox.with { sandbox in
            for provider in ["lemonsqueezy", "paystack"] {
                var left = count
                while left > 0 {
                    try await sandbox.control("/\(provider)/seed", #"{"subscriptions":\#(min(left, 5000))}"#)
                    left -= 5000
                }
            }
            let pages = (count + 99) / 100
            let clock = ContinuousClock()

            // Baseline: the same page requests, bare.
            let rawStart = clock.now
            for number in 1...pages {
                for path in [
                    "/lemonsqueezy/v1/subscriptions?filter%5Bstore_id%5D=1&page%5Bsize%5D=100&page%5Bnumber%5D=\(number)",
                    "/lemonsqueezy/v1/orders?filter%5Bstore_id%5D=1&page%5Bsize%5D=100&page%5Bnumber%5D=\(number)",
                ] {
                    _ = try await sandbox.raw(path, key: "ls_test_sandbox_key")
                }
                for path in ["/paystack/subscription?perPage=100&page=\(number)", "/paystack/transaction?perPage=100&page=\(number)"] {
                    _ = try await sandbox.raw(path, key: "sk_test_sandbox_secret")
                }
            }
            let raw = clock.now - rawStart

            let metrics = ReconcilerMetrics(registry: MetricsRegistry())
            let publisher = CountingPublisher()
            let sweeper = Sweeper(
                source: sandbox.settings().makeSource(httpClient: sandbox.http, metrics: metrics),
                publisher: publisher, statuses: nil, logger: Fixture.logger)
            let start = clock.now
            var reports = await sweeper.sweep(.lemonsqueezy, since: nil, trigger: .sweep, sweepID: "bench")
            reports += await sweeper.sweep(.paystack, since: nil, trigger: .sweep, sweepID: "bench")
            let swept = clock.now - start
            let requests = metrics.requests(.lemonsqueezy).current + metrics.requests(.paystack).current

            #expect(reports.allSatisfy { $0.failure == nil && $0.listed == count })
            #expect(requests == 4 * pages, "one request per page of 100")
            #expect(publisher.count == 4 * count)
            let ratio = swept.inSeconds / max(raw.inSeconds, 0.001)
            // With the default budgets (300/min Lemon Squeezy, 100/min Paystack test keys) the pages
            // alone take this long, whatever the sandbox's speed.
            let budgeted = Double(2 * pages - 15) / (Double(300 - 15) / 60) + Double(2 * pages - 5) / (Double(100 - 5) / 60)
            print(
                String(
                    format: "reconciler sweep bench: %d subscriptions per provider (%d objects), %d provider requests "
                        + "(%.2f per 100 objects); sweep %.2f s, bare page requests %.2f s (ratio %.2f); at the default budgets ≥ %.0f s",
                    count, 4 * count, requests, Double(requests) * 100 / Double(4 * count), swept.inSeconds, raw.inSeconds, ratio, budgeted))
            #expect(ratio < 10, "the sweep's own work stays small next to the requests: \(ratio)")
        }
    }
}
