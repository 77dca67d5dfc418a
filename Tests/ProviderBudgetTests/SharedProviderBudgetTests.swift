import Foundation
import BillingModel
import Providers
import Synchronization
import Telemetry
import Testing
@testable import ProviderBudget

/// ``SharedProviderBudget`` over an in-memory ledger and an injected clock:
/// several budgets on one store stand for replicas on one database.
@Suite struct SharedProviderBudgetTests {
    /// The ledger's contract in memory.
    final class MemoryLedger: ProviderLedgerStore {
        struct Down: Error {}
        let counts = Mutex<[String: Int]>([:])
        let pauses = Mutex<[Provider: Date]>([:])
        let failing = Mutex(false)
        /// Calls that reached the ledger (each one a transaction in PostgreSQL).
        let takes = Mutex(0)

        func take(provider: Provider, window: Date, ceiling: Int, upTo count: Int, at now: Date) async throws -> LedgerDecision {
            if failing.withLock({ $0 }) { throw Down() }
            takes.withLock { $0 += 1 }
            if let until = pauses.withLock({ $0[provider] }), until > now { return .paused(until: until) }
            return counts.withLock { counts in
                let key = "\(provider.rawValue)|\(window.timeIntervalSince1970)"
                let used = counts[key, default: 0]
                guard used < ceiling else { return .windowFull }
                let granted = min(count, ceiling - used)
                counts[key] = used + granted
                return .granted(granted)
            }
        }

        func pause(provider: Provider, until: Date) async throws {
            pauses.withLock { $0[provider] = max($0[provider] ?? until, until) }
        }
    }

    /// A clock that moves only when someone sleeps on it.
    final class ManualClock: Sendable {
        let instant: Mutex<Date>
        let slept = Mutex<[Duration]>([])
        init(_ start: Date) { instant = Mutex(start) }
        var now: @Sendable () -> Date { { self.instant.withLock { $0 } } }
        var sleep: @Sendable (Duration) async throws -> Void {
            { duration in
                self.slept.withLock { $0.append(duration) }
                self.instant.withLock {
                    $0 = $0.addingTimeInterval(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
                }
            }
        }
    }

    /// Counts what reaches it (stands for the in-process bucket).
    final class CountingBudget: ProviderRequestBudget {
        let acquired = Mutex(0)
        let backOffs = Mutex<[Duration]>([])
        func acquire() async throws { acquired.withLock { $0 += 1 } }
        func backOff(for delay: Duration) { backOffs.withLock { $0.append(delay) } }
    }

    static let logger = Logger(service: "shared-budget-tests", minimumLevel: .critical)
    static let shares = ProviderBudgetShares(requestsPerMinute: 300) // per window: interactive 42, targeted 30, sweep 17

    static func budget(
        _ requestClass: ProviderRequestClass, _ ledger: MemoryLedger, _ clock: ManualClock, fallback: CountingBudget = CountingBudget(),
        batch: Int = 1
    )
        -> SharedProviderBudget
    {
        SharedProviderBudget(
            provider: .lemonsqueezy, requestClass: requestClass, shares: shares, store: ledger, fallback: fallback, logger: logger,
            batch: batch, now: clock.now, sleep: clock.sleep)
    }

    @Test func aBatchCostsOneLedgerCallAndEndsWithItsWindow() async throws {
        let ledger = MemoryLedger()
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let targeted = Self.budget(.targeted, ledger, clock, batch: 5)
        for _ in 0..<12 { try await targeted.acquire() }
        #expect(ledger.takes.withLock { $0 } == 3, "12 requests in batches of 5")
        #expect(ledger.counts.withLock { $0.values.reduce(0, +) } == 15, "the unsent 3 are counted: the ledger errs on the provider's side")
        // The next window: the 3 left of the last batch are not carried over.
        clock.instant.withLock { $0 = $0.addingTimeInterval(10) }
        try await targeted.acquire()
        #expect(ledger.takes.withLock { $0 } == 4)
        #expect(ledger.counts.withLock { $0.values.sorted() } == [5, 15])
    }

    @Test func aBatchNeverPassesTheCeilingNorAQuarterOfIt() async throws {
        let ledger = MemoryLedger()
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        // The sweep's window ceiling is 17: a batch of 50 is cut to 4.
        let sweep = Self.budget(.sweep, ledger, clock, batch: 50)
        #expect(sweep.batch == 4)
        for _ in 0..<17 { try await sweep.acquire() }
        #expect(clock.slept.withLock { $0 }.isEmpty)
        #expect(ledger.takes.withLock { $0 } == 5, "4 + 4 + 4 + 4 + 1")
        try await sweep.acquire()
        #expect(clock.slept.withLock { $0 } == [.seconds(10)], "the 18th waits for the next window")
    }

    @Test func a429DropsWhatIsLeftOfTheBatch() async throws {
        let ledger = MemoryLedger()
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let targeted = Self.budget(.targeted, ledger, clock, batch: 5)
        try await targeted.acquire()
        targeted.backOff(for: .seconds(30))
        try await targeted.acquire()
        #expect(clock.slept.withLock { $0.reduce(.zero, +) } >= .seconds(30), "the held 4 did not go out during the pause")
        #expect(ledger.takes.withLock { $0 } >= 2)
    }

    @Test func theSweepWaitsForTheNextWindowWhileTheCheckoutStillGoesOut() async throws {
        let ledger = MemoryLedger()
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_002))
        // Two reconciler replicas sweeping, one checkout replica: three budgets, one ledger.
        let sweepA = Self.budget(.sweep, ledger, clock)
        let sweepB = Self.budget(.sweep, ledger, clock)
        let checkout = Self.budget(.interactive, ledger, clock)
        for index in 0..<17 { try await (index.isMultiple(of: 2) ? sweepA : sweepB).acquire() }
        #expect(clock.slept.withLock { $0 }.isEmpty, "17 sweep requests fit the window")
        // The window is at the sweep's ceiling: the checkout is still granted, 25 more times.
        for _ in 0..<25 { try await checkout.acquire() }
        #expect(clock.slept.withLock { $0 }.isEmpty)
        // Now the sweep asks again: it sleeps to the next window (8 s away) before it is granted.
        try await sweepB.acquire()
        #expect(clock.slept.withLock { $0 } == [.seconds(8)])
        #expect(clock.now() == Date(timeIntervalSince1970: 1_800_000_010))
    }

    @Test func targetedFetchesStopAtTheLimitMinusTheCheckoutsReserve() async throws {
        let ledger = MemoryLedger()
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let targeted = Self.budget(.targeted, ledger, clock)
        let checkout = Self.budget(.interactive, ledger, clock)
        for _ in 0..<30 { try await targeted.acquire() }
        for _ in 0..<12 { try await checkout.acquire() }
        #expect(clock.slept.withLock { $0 }.isEmpty, "the reserve (12 of 42) is the checkout's")
        try await checkout.acquire()
        #expect(clock.slept.withLock { $0 } == [.seconds(10)], "the 43rd waits for the next window")
    }

    @Test func a429SeenByOneReplicaHoldsTheOthers() async throws {
        let ledger = MemoryLedger()
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let first = Self.budget(.interactive, ledger, clock)
        let second = Self.budget(.targeted, ledger, clock)
        first.backOff(for: .seconds(30))
        // The pause reaches the ledger from a task; wait for it rather than guess.
        for _ in 0..<200 where ledger.pauses.withLock({ $0[.lemonsqueezy] }) == nil { try await Task.sleep(for: .milliseconds(5)) }
        #expect(ledger.pauses.withLock { $0[.lemonsqueezy] } == Date(timeIntervalSince1970: 1_800_000_030))
        try await second.acquire()
        #expect(clock.now() >= Date(timeIntervalSince1970: 1_800_000_030), "granted only after the pause")
        #expect(clock.slept.withLock { $0.reduce(.zero, +) } == .seconds(30))
    }

    @Test func withoutTheLedgerTheReplicaFallsBackToItsOwnShare() async throws {
        let ledger = MemoryLedger()
        ledger.failing.withLock { $0 = true }
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let fallback = CountingBudget()
        let budget = Self.budget(.sweep, ledger, clock, fallback: fallback)
        for _ in 0..<3 { try await budget.acquire() }
        #expect(fallback.acquired.withLock { $0 } == 3)
        ledger.failing.withLock { $0 = false }
        try await budget.acquire()
        #expect(fallback.acquired.withLock { $0 } == 3, "back on the ledger")
        #expect(ledger.counts.withLock { $0.values.reduce(0, +) } == 1)
    }
}
