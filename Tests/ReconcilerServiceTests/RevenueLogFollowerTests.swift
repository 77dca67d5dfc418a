import Catalog
import Foundation
import BillingModel
import Entitlements
import Synchronization
import Telemetry
import Testing

@testable import ProjectionStore
@testable import ReconcilerService

/// The revenue gauges fed incrementally (``RevenueLogFollower``) give the
/// figures of a full read of the log at every moment, over a fake log whose
/// transactions commit out of id order (no database; the same over a real
/// PostgreSQL: `RevenueLogFollowerIntegrationTests`).
@Suite struct RevenueLogFollowerTests {
    /// A log written by transactions that commit in any order, read as
    /// PostgreSQL would: a read sees committed rows only, and its watermark
    /// is the oldest transaction still open.
    final class ScriptedLog: RevenueLogChangeSource {
        struct Logged {
            var transaction: Int64
            var row: RevenueLogChanges.Row
        }
        struct State {
            var nextTransaction: Int64 = 100
            var open: [Int64: [RevenueLogChanges.Row]] = [:]
            var committed: [Logged] = []
        }
        let state = Mutex(State())

        func begin() -> Int64 {
            state.withLock { state in
                defer { state.nextTransaction += 1 }
                state.open[state.nextTransaction] = []
                return state.nextTransaction
            }
        }

        func log(_ event: BillingEvent, key: String, in transaction: Int64) {
            let entry = RevenueLog.Entry(provider: event.provider, subscriptionID: event.subscriptionID, dedupKey: key, event: event)
            let row = RevenueLogChanges.Row(dedupKey: key, transaction: transaction, orderingTime: event.orderingTimestamp, entry: entry)
            state.withLock { $0.open[transaction, default: []].append(row) }
        }

        func commit(_ transaction: Int64) {
            state.withLock { state in
                let rows = state.open.removeValue(forKey: transaction) ?? []
                state.committed += rows.map { Logged(transaction: transaction, row: $0) }
            }
        }

        func changes(since: Int64?) async throws -> RevenueLogChanges {
            state.withLock { state in
                let rows = state.committed.filter { since == nil || $0.transaction >= since! }.map(\.row)
                return RevenueLogChanges(since: since, watermark: state.open.keys.min() ?? state.nextTransaction, rows: rows)
            }
        }

        /// What `RevenueLog.read(from:before:)` returns: every committed row
        /// provider-timed before `before` (or untimed), in its key order.
        func fullRead(before: Date) -> RevenueLog {
            let rows = state.withLock { $0.committed.map(\.row) }
                .filter { ($0.orderingTime ?? .distantPast) < before }
                .sorted {
                    ($0.entry?.subscription?.subscriptionID ?? "~", $0.dedupKey) < ($1.entry?.subscription?.subscriptionID ?? "~", $1.dedupKey)
                }
            var log = RevenueLog()
            for row in rows { row.entry.map { log.add($0) } }
            log.rowsRead = rows.count
            log.moneyEvents = log.withoutRefundsCountedTwice(log.moneyEvents)
            return log
        }
    }

    static let logger = Logger(service: "tests", minimumLevel: .critical)

    static func date(_ month: Int, _ day: Int, hour: Int = 12) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: DateComponents(year: 2026, month: month, day: day, hour: hour))!
    }

    /// Paystack subscriptions (prices stated), a Lemon Squeezy one whose
    /// first order's refund is announced twice, a one-time order's refund
    /// and a dispute, spread over October to December.
    static func history() -> [(key: String, event: BillingEvent)] {
        let monthly = RecurringPrice(amount: 500_000, currency: "NGN", interval: BillingInterval(unit: .month))
        let weekly = RecurringPrice(amount: 120_000, currency: "NGN", interval: BillingInterval(unit: .week))
        func ps(_ id: String, _ kind: BillingEventKind, _ at: Date, status: String, price: RecurringPrice) -> BillingEvent {
            var e = BillingEvent(kind: kind, provider: .paystack, providerEventName: "ps", entityKey: "paystack:CUS_\(id)")
            (e.subscriptionID, e.status, e.variantID, e.currency, e.recurringPrice, e.orderingTimestamp) = (id, status, "PLN", "NGN", price, at)
            return e
        }
        func money(
            _ kind: BillingEventKind, _ at: Date, subscription: String? = nil, order: String? = nil, invoice: String? = nil, amount: Int64
        )
            -> BillingEvent
        {
            let provider: Provider = kind == .disputeCreated ? .paystack : .lemonsqueezy
            var e = BillingEvent(kind: kind, provider: provider, providerEventName: "money", entityKey: "\(provider.rawValue):x")
            (e.subscriptionID, e.orderID, e.invoiceID, e.currency, e.orderingTimestamp) = (subscription, order, invoice, "USD", at)
            (e.refundedAmount, e.amount) = (amount, amount)
            return e
        }
        var lemon = BillingEvent(kind: .subscriptionCreated, provider: .lemonsqueezy, providerEventName: "ls", entityKey: "lemonsqueezy:sub_L1")
        (lemon.subscriptionID, lemon.status, lemon.variantID, lemon.orderID, lemon.orderingTimestamp) = ("L1", "active", "101", "OL1", date(10, 5))
        return [
            ("P1a", ps("P1", .subscriptionCreated, date(10, 10), status: "active", price: monthly)),
            ("P2a", ps("P2", .subscriptionCreated, date(10, 20), status: "active", price: weekly)),
            ("L1a", lemon),
            ("P3a", ps("P3", .subscriptionCreated, date(11, 2), status: "active", price: monthly)),
            ("P1b", ps("P1", .subscriptionDisabled, date(11, 9), status: "cancelled", price: monthly)),
            ("L1b", money(.paymentRefunded, date(11, 11), subscription: "L1", invoice: "I1", amount: 500)),
            ("L1c", money(.orderRefunded, date(11, 11), order: "OL1", amount: 500)),
            ("O9a", money(.orderRefunded, date(11, 14), order: "O9", amount: 1500)),
            // Logged late: an older provider time than events logged before it.
            ("P2b", ps("P2", .subscriptionDisabled, date(10, 28), status: "cancelled", price: weekly)),
            // Committed first in its step, so read again by the next (and held till December).
            ("D1", money(.disputeCreated, date(12, 1, hour: 2), amount: 500_000)),
            ("P4a", ps("P4", .subscriptionCreated, date(11, 30, hour: 23), status: "active", price: weekly)),
            ("P2c", ps("P2", .subscriptionCreated, date(12, 2), status: "active", price: monthly)),
            ("P3b", ps("P3", .subscriptionDisabled, date(12, 3), status: "cancelled", price: monthly)),
            ("P5a", ps("P5", .subscriptionCreated, date(12, 4), status: "active", price: monthly)),
        ]
    }

    @Test func incrementalFiguresEqualTheFullReadsAtEveryStep() async throws {
        let log = ScriptedLog()
        let figures = LogRevenueFigures(changes: log, catalog: CatalogCache(sources: [], logger: Self.logger))
        var pending = Self.history()[...]
        // Each step: two transactions write, the later commits first, the
        // earlier stays open over a computation and commits after it.
        let moments = [
            Self.date(10, 25), Self.date(10, 31, hour: 23), Self.date(11, 1, hour: 1), Self.date(11, 15), Self.date(11, 30, hour: 22),
            Self.date(12, 1, hour: 3), Self.date(12, 3), Self.date(12, 5),
        ]
        var leftOpen: Int64?
        var reads: [Int] = []
        for asOf in moments {
            let early = log.begin(), late = log.begin()
            for (transaction, logged) in zip([early, late], pending.prefix(2)) { log.log(logged.event, key: logged.key, in: transaction) }
            pending = pending.dropFirst(2)
            log.commit(late)
            if let leftOpen { log.commit(leftOpen) }
            leftOpen = early

            let incremental = try await figures.figures(asOf: asOf)
            let full = log.fullRead(before: asOf).report(ReportPeriod.month(containing: asOf), prices: PriceBook(items: []), asOf: asOf)
            #expect(incremental.rows == full, "as of \(asOf)")
            #expect(!full.isEmpty)
            reads.append(incremental.eventsRead)
        }
        if let leftOpen { log.commit(leftOpen) }
        let last = Self.date(12, 6)
        let incremental = try await figures.figures(asOf: last)
        #expect(incremental.rows == log.fullRead(before: last).report(ReportPeriod.month(containing: last), prices: PriceBook(items: []), asOf: last))
        // After the first read, each reads what the last two transactions logged, not the whole log.
        #expect(reads.dropFirst().allSatisfy { $0 <= 3 }, "\(reads)")
    }

    @Test func aRowFromATransactionBelowTheWatermarkIsNeverMissedNorTakenTwice() {
        var follower = RevenueLogFollower()
        var event = BillingEvent(kind: .subscriptionCreated, provider: .paystack, providerEventName: "ps", entityKey: "paystack:CUS_A")
        (event.subscriptionID, event.status, event.orderingTimestamp) = ("A", "active", Self.date(11, 1))
        func row(_ key: String, _ transaction: Int64) -> RevenueLogChanges.Row {
            RevenueLogChanges.Row(
                dedupKey: key, transaction: transaction, orderingTime: event.orderingTimestamp,
                entry: RevenueLog.Entry(provider: .paystack, subscriptionID: "A", dedupKey: key, event: event))
        }
        let applied = [
            follower.apply(RevenueLogChanges(since: nil, watermark: 10, rows: [row("a", 11)])),
            // A read that did not start at the watermark is refused.
            follower.apply(RevenueLogChanges(since: 3, watermark: 12, rows: [row("x", 11)])),
            // "b"'s transaction (10) was open at the first read and committed after; "a" is read again.
            follower.apply(RevenueLogChanges(since: 10, watermark: 12, rows: [row("b", 10), row("a", 11)])),
            follower.apply(RevenueLogChanges(since: 12, watermark: 12, rows: [])),
        ]
        #expect(applied == [true, false, true, true])
        let log = follower.log(before: Self.date(11, 2))
        #expect(log.subscriptionEvents.values.flatMap { $0.map(\.dedupKey) }.sorted() == ["a", "b"])
        #expect(follower.watermark == 12)
        #expect(!follower.canAnswer(before: Self.date(11, 1)))
    }
}
