import Catalog
import CheckoutService
import CryptoPrimitives
import Foundation
import HTTPServer
import BillingModel
import Postgres
import ProviderBudget
import Providers
import Telemetry
import TestSupport
import Testing

/// Per-user quotas and the shared provider ledger against real PostgreSQL
/// (two application or ledger instances on one database stand for two
/// replicas), with create-checkout going through the provider sandbox.
@Suite struct QuotaTests {
    /// Floods create-checkout from one user across two checkout replicas while
    /// another user checks out: the flooder gets exactly the quota and 429s with
    /// `Retry-After`, the other user is served.
    @Test func aFloodFromOneUserLeavesAnotherUserCheckingOut() async throws {
        // A fixed instant: the whole flood falls into one quota window.
        let instant = Date()
        let quotas = UserQuotaPolicy(createPerMinute: 5, createPerHour: 0)
        try await Harness.with(quotas: quotas, now: { instant }) { harness in
            let second = buildCheckoutApplication(
                configuration: CheckoutConfiguration(redirectURL: "https://app.example.com/done", quotas: quotas),
                auth: .jwt(try JWTVerifier(key: .hs256(secret: Harness.jwtSecret))), ownership: TestOwnership.proof,
                providers: harness.registry, pool: harness.pool, publisher: harness.publisher, logger: harness.logger, now: { instant })
            #expect(await second.catalog.refresh().ok)
            let flooder = try Harness.token(sub: TestNames.unique("flooder"), email: "flood@example.com")
            let bystander = try Harness.token(sub: TestNames.unique("bystander"), email: "buyer@example.com")
            let body = #"{"variantId":"ls_2"}"#

            let answers = try await withThrowingTaskGroup(of: (Bool, HTTPResponse).self) { group in
                for index in 0..<16 {
                    group.addTask {
                        let app = index.isMultiple(of: 2) ? harness.app : second
                        let headers: HTTPHeaders = ["Authorization": "Bearer \(flooder)", "Content-Type": "application/json"]
                        let request = try HTTPRequest(method: .post, target: "/api/create-checkout", headers: headers, body: Array(body.utf8))
                        return (false, await app.respond(to: request, logger: harness.logger))
                    }
                }
                group.addTask { (true, try await harness.createCheckout(token: bystander, email: nil, variant: "ls_2")) }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let flood = answers.filter { !$0.0 }.map(\.1)
            let served = answers.first { $0.0 }?.1
            #expect(served?.status == .ok, "the other user: \(served?.text ?? "no answer")")
            #expect(flood.filter { $0.status == .ok }.count == 5, "\(flood.map(\.status.code))")
            let refused = flood.filter { $0.status == .tooManyRequests }
            #expect(refused.count == 11, "\(flood.map(\.status.code))")
            let expectedWait = String(Int((60 - instant.timeIntervalSince1970.truncatingRemainder(dividingBy: 60)).rounded(.up)))
            for response in refused {
                #expect(response.headers["Retry-After"] == expectedWait)
                let json = try response.json()
                #expect(json["success"] as? Bool == false && json["code"] as? String == "rate_limited")
            }
        }
    }

    /// A replay of a completed request (same `Idempotency-Key`) is answered
    /// from the store and uses no quota.
    @Test func idempotentReplaysUseNoQuota() async throws {
        let instant = Date()
        try await Harness.with(quotas: UserQuotaPolicy(createPerMinute: 2, createPerHour: 0), now: { instant }) { harness in
            let token = try Harness.token(sub: TestNames.unique("replayer"), email: "r@example.com")
            let first = try await harness.createCheckout(token: token, email: nil, variant: "ls_2", key: "key-1")
            #expect(first.status == .ok, "\(first.text)")
            for _ in 0..<4 {
                let replay = try await harness.createCheckout(token: token, email: nil, variant: "ls_2", key: "key-1")
                #expect(replay.status == .ok && replay.headers["Idempotent-Replayed"] == "true")
            }
            #expect(try await harness.createCheckout(token: token, email: nil, variant: "ls_2", key: "key-2").status == .ok)
            let third = try await harness.createCheckout(token: token, email: nil, variant: "ls_2", key: "key-3")
            #expect(third.status == .tooManyRequests, "\(third.text)")
            // The refused key was released: once the quota allows, the same key works.
            let rows = try await harness.pool.query("SELECT count(*)::int8 FROM checkout_idempotency_keys WHERE idempotency_key = 'key-3'")
            #expect(rows.count == 1)
            #expect(try rows[0].decode(Int.self) == 0)
        }
    }

    // MARK: - The shared provider ledger

    /// Sleeping on this clock fails instead of waiting, so a test sees a refusal at once.
    struct WouldWait: Error { let duration: Duration }

    /// Two reconciler replicas sweeping and a checkout replica, each with its
    /// own ledger store on the same database: once the window reaches the
    /// sweep's ceiling the sweeps are refused while the checkout still goes
    /// out, up to the whole limit; a 429 recorded by one holds the others.
    @Test func theSweepIsRefusedBeforeTheCheckoutAcrossReplicas() async throws {
        try await TestDatabase.with { pool in
            // 70 a minute: per ten-second window, interactive 10, targeted 7, sweep 4.
            let shares = ProviderBudgetShares(requestsPerMinute: 70)
            let instant = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 10).rounded(.down) * 10 + 1)
            let logger = Logger(service: "quota-tests", minimumLevel: .critical)
            func replica(_ requestClass: ProviderRequestClass, fallback: RequestBudget = RequestBudget(requestsPerMinute: 1)) -> SharedProviderBudget
            {
                SharedProviderBudget(
                    provider: .paystack, requestClass: requestClass, shares: shares, store: PostgresProviderLedgerStore(pool: pool),
                    fallback: fallback, logger: logger, now: { instant }, sleep: { throw WouldWait(duration: $0) })
            }
            let sweepA = replica(.sweep), sweepB = replica(.sweep), targeted = replica(.targeted), checkout = replica(.interactive)

            for index in 0..<4 { try await (index.isMultiple(of: 2) ? sweepA : sweepB).acquire() }
            await #expect(throws: WouldWait.self, "the fifth sweep request in the window") { try await sweepA.acquire() }
            await #expect(throws: WouldWait.self) { try await sweepB.acquire() }
            for _ in 0..<3 { try await targeted.acquire() }
            await #expect(throws: WouldWait.self, "targeted fetches stop at 7") { try await targeted.acquire() }
            for _ in 0..<3 { try await checkout.acquire() }
            await #expect(throws: WouldWait.self, "the whole limit is 10") { try await checkout.acquire() }

            let used = try await pool.query("SELECT used FROM provider_request_ledger WHERE provider = 'paystack'")
            let counts = try used.map { row -> Int in try row.decode(Int.self) }
            #expect(counts == [10], "refusals are not counted")

            // A 429 seen by the checkout pauses the reconciler's replicas too (next window, same database).
            let later = instant.addingTimeInterval(10)
            try await PostgresProviderLedgerStore(pool: pool).pause(provider: .paystack, until: later.addingTimeInterval(20))
            let decision = try await PostgresProviderLedgerStore(pool: pool).take(
                provider: .paystack, window: LedgerWindow.start(of: later), ceiling: 10, upTo: 1, at: later)
            #expect(decision == .paused(until: later.addingTimeInterval(20)))
            let after = try await PostgresProviderLedgerStore(pool: pool).take(
                provider: .paystack, window: LedgerWindow.start(of: later.addingTimeInterval(20)), ceiling: 10, upTo: 1,
                at: later.addingTimeInterval(20))
            #expect(after == .granted(1))
        }
    }

    /// A batch is granted as far as it fits under the ceiling, in one
    /// statement per replica, and concurrent batches never overshoot it.
    @Test func batchesAreGrantedUpToTheCeilingAndNoFurther() async throws {
        try await TestDatabase.with { pool in
            let store = PostgresProviderLedgerStore(pool: pool)
            let now = Date()
            let window = LedgerWindow.start(of: now)
            #expect(try await store.take(provider: .stripe, window: window, ceiling: 12, upTo: 5, at: now) == .granted(5), "the window's first take")
            #expect(try await store.take(provider: .stripe, window: window, ceiling: 12, upTo: 5, at: now) == .granted(5))
            #expect(try await store.take(provider: .stripe, window: window, ceiling: 12, upTo: 5, at: now) == .granted(2), "what is left of 12")
            #expect(try await store.take(provider: .stripe, window: window, ceiling: 12, upTo: 5, at: now) == .windowFull)

            // Eight replicas at once on a fresh window: the grants add up to the ceiling exactly.
            let next = window.addingTimeInterval(10)
            let grants = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        let decision = try await store.take(provider: .stripe, window: next, ceiling: 30, upTo: 7, at: now)
                        if case .granted(let count) = decision { return count }
                        return 0
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(grants == 30)
            let used = try await pool.query("SELECT used FROM provider_request_ledger WHERE provider = 'stripe' AND window_start = \(next)")
            let counts = try used.map { row -> Int in try row.decode(Int.self) }
            #expect(counts == [30])
        }
    }
}
