import Foundation
import BillingModel
import Testing

@testable import Entitlements

/// The pure parts of the revenue report: how a change of MRR is classified,
/// how prices become monthly, how a period is cut, and how one
/// subscription's events become its revenue history. No database.
@Suite struct RevenueMovementTests {
    @Test(arguments: [
        (Int64(0), Int64(1000), false, MRRMovement?.some(.new)),
        (0, 1000, true, .reactivation),
        (1000, 2500, true, .expansion),
        (2500, 1000, true, .contraction),
        (1000, 0, true, .churn),
        (1000, 1000, true, nil),
        (0, 0, false, nil),
    ])
    func classifiesEachChange(before: Int64, after: Int64, paidBefore: Bool, expected: MRRMovement?) {
        #expect(MRRMovement.classify(from: before, to: after, hadRevenueBefore: paidBefore) == expected)
    }

    @Test(arguments: [
        (BillingInterval(unit: .month), Int64(1000), Int64(1000)),
        (BillingInterval(unit: .month, count: 3), 3000, 1000),
        (BillingInterval(unit: .year), 12000, 1000),
        (BillingInterval(unit: .year), 9999, 833), // 833.25
        (BillingInterval(unit: .week), 120_000, 520_000), // × 52 / 12
        (BillingInterval(unit: .week, count: 2), 1200, 2600),
        (BillingInterval(unit: .day), 100, 3042), // × 365 / 12 = 3041.67
    ])
    func normalizesToAMonth(interval: BillingInterval, amount: Int64, monthly: Int64) {
        #expect(RecurringPrice(amount: amount, currency: "usd", interval: interval).monthlyMinorUnits == monthly)
    }

    @Test func monthsAndWeeksAreCutInUTCAtTheirBoundaries() {
        let from = date("2026-11-01T00:00:00Z"), to = date("2026-12-01T00:00:00Z")
        #expect(ReportPeriod(from: from, to: to, granularity: .month).buckets == [DateInterval(start: from, end: to)])
        let weeks = ReportPeriod(from: from, to: to, granularity: .week).buckets
        // 1 November 2026 is a Sunday: the first bucket is that day alone, then Monday to Monday.
        #expect(weeks.first == DateInterval(start: from, end: date("2026-11-02T00:00:00Z")))
        #expect(weeks.dropFirst().first == DateInterval(start: date("2026-11-02T00:00:00Z"), end: date("2026-11-09T00:00:00Z")))
        #expect(weeks.last?.end == to)
        #expect(weeks.count == 6)
        #expect(ReportPeriod(from: from, to: to, granularity: .day).buckets.count == 30)
        #expect(ReportPeriod.month(containing: date("2026-02-14T08:00:00Z")).to == date("2026-03-01T00:00:00Z"))
    }

    @Test func aStatedPriceHoldsUntilTheVariantChangesThenTheCatalogAnswers() {
        var book = PriceBook()
        book.set(RecurringPrice(amount: 2500, currency: "USD", interval: .init(unit: .month)), provider: .lemonsqueezy, variantID: "102")
        var first = event(.subscriptionCreated, "2026-11-01T10:00:00Z", status: "active", variant: "101")
        first.recurringPrice = RecurringPrice(amount: 1200, currency: "USD", interval: .init(unit: .month))
        let history = SubscriptionRevenueHistory(
            provider: .lemonsqueezy, subscriptionID: "1",
            events: [
                .init(dedupKey: "b", event: event(.subscriptionUpdated, "2026-11-05T10:00:00Z", status: "active", variant: "102")),
                .init(dedupKey: "a", event: first),
            ], prices: book)
        #expect(history.points.map(\.mrr) == [1200, 2500])
        #expect(history.currency == "USD")
    }

    @Test func aCancelledSubscriptionStopsPayingAtItsEndWithoutAnotherEvent() {
        let history = SubscriptionRevenueHistory(
            provider: .lemonsqueezy, subscriptionID: "1",
            events: [
                .init(dedupKey: "a", event: event(.subscriptionCreated, "2026-11-01T10:00:00Z", status: "active", variant: "101")),
                .init(
                    dedupKey: "b",
                    event: event(.subscriptionCancelled, "2026-11-03T10:00:00Z", status: "cancelled", variant: "101", endsAt: "2026-11-20T10:00:00Z")),
            ], prices: Self.book)
        #expect(history.points.map(\.paying) == [true, true, false])
        #expect(history.points.last?.at == date("2026-11-20T10:00:00Z"))
        #expect(history.standing(at: date("2026-11-19T00:00:00Z"))?.mrr == 1000)
        #expect(history.standing(at: date("2026-11-21T00:00:00Z"))?.mrr == 0)
    }

    @Test func aPriceNeitherStatedNorInTheCatalogIsUnknownNotGuessed() {
        let history = SubscriptionRevenueHistory(
            provider: .lemonsqueezy, subscriptionID: "1",
            events: [.init(dedupKey: "a", event: event(.subscriptionCreated, "2026-11-01T10:00:00Z", status: "active", variant: "999"))],
            prices: Self.book)
        #expect(history.points.first?.paying == true)
        #expect(history.points.first?.price == nil)
        #expect(history.points.first?.mrr == 0)
        #expect(history.currency == "unknown")
    }

    @Test func lemonSqueezyRefundsCountWhatEachEventAdds() {
        func refunded(_ kind: BillingEventKind, _ at: String, total: Int64, invoice: String?, order: String?) -> SubscriptionFold.LoggedEvent {
            var e = BillingEvent(kind: kind, provider: .lemonsqueezy, providerEventName: "x", entityKey: "k")
            e.refundedAmount = total
            e.invoiceID = invoice
            e.orderID = order
            e.currency = "usd"
            e.orderingTimestamp = date(at)
            return .init(dedupKey: at, event: e)
        }
        let returns = MoneyReturn.read([
            refunded(.paymentRefunded, "2026-11-02T00:00:00Z", total: 300, invoice: "I1", order: nil),
            refunded(.paymentRefunded, "2026-11-03T00:00:00Z", total: 1000, invoice: "I1", order: nil),
            refunded(.orderRefunded, "2026-11-04T00:00:00Z", total: 500, invoice: nil, order: "O1"),
        ])
        #expect(returns.map(\.amount) == [300, 700, 500])
        #expect(returns.allSatisfy { $0.currency == "USD" && $0.kind == .refund })
    }

    @Test func sameInstantChangesCollapseIntoOne() {
        let price = RecurringPrice(amount: 1000, currency: "USD", interval: .init(unit: .month))
        let at = date("2026-11-01T00:00:00Z")
        let points = [
            RevenuePoint(at: at, paying: false, trialing: false, inGrace: false, price: price, failedPayments: 1),
            RevenuePoint(at: at, paying: true, trialing: false, inGrace: false, price: price, failedPayments: 0),
        ]
        let collapsed = RevenueReport.collapsed(points)
        #expect(collapsed.count == 1)
        #expect(collapsed.first?.paying == true)
        #expect(collapsed.first?.failedPayments == 1)
    }

    static let book: PriceBook = {
        var book = PriceBook()
        book.set(RecurringPrice(amount: 1000, currency: "USD", interval: .init(unit: .month)), provider: .lemonsqueezy, variantID: "101")
        return book
    }()

    func event(_ kind: BillingEventKind, _ at: String, status: String, variant: String, endsAt: String? = nil) -> BillingEvent {
        var e = BillingEvent(kind: kind, provider: .lemonsqueezy, providerEventName: "x", entityKey: "lemonsqueezy:sub_1")
        e.subscriptionID = "1"
        e.status = status
        e.variantID = variant
        e.cancelled = status == "cancelled"
        e.endsAt = endsAt.map(date)
        e.orderingTimestamp = date(at)
        return e
    }

    func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text) ?? .distantPast }
}
