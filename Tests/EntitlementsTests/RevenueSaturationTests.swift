import BillingModel
import Foundation
import Testing

@testable import Entitlements

/// Plan amounts from providers' payloads can be absurd (a test plan, a
/// mistake): the revenue figures hold at the bounds of `Int64`, and nothing
/// in the report, the CLI or the reconciler's gauges traps on overflow.
@Suite struct RevenueSaturationTests {
    @Test func additionAndSubtractionHoldAtTheBounds() {
        #expect(Int64.max.addingSaturating(1) == .max && Int64.min.addingSaturating(-1) == .min)
        #expect(Int64.max.subtractingSaturating(-1) == .max && Int64.min.subtractingSaturating(1) == .min)
        #expect(Int64(5).addingSaturating(-7) == -2 && Int64(5).subtractingSaturating(7) == -2)
        #expect(Int64.saturating(1e30) == .max && Int64.saturating(-1e30) == .min && Int64.saturating(.nan) == 0)
        #expect(Int64.saturating(9_223_372_036_854_775_808.0) == .max, "2^63 itself is out of range")
        #expect(Int64.saturating(-9_223_372_036_854_775_808.0) == .min && Int64.saturating(12.9) == 12)
    }

    @Test(arguments: [BillingInterval.Unit.hour, .day, .week, .month])
    func aHugePlanIsHeldAtTheMaximumMonthly(unit: BillingInterval.Unit) {
        #expect(RecurringPrice(amount: .max, currency: "USD", interval: .init(unit: unit)).monthlyMinorUnits == .max)
        #expect(RecurringPrice(amount: .min, currency: "USD", interval: .init(unit: unit)).monthlyMinorUnits == .min)
    }

    @Test func aReportOverHugePlansHoldsAtTheBoundsInsteadOfTrapping() {
        let movements = RevenueMovementTests()
        var book = PriceBook()
        book.set(RecurringPrice(amount: .max, currency: "USD", interval: .init(unit: .hour)), provider: .lemonsqueezy, variantID: "101")
        book.set(RecurringPrice(amount: 1000, currency: "USD", interval: .init(unit: .month)), provider: .lemonsqueezy, variantID: "102")
        let histories = (1...3).map { n in
            SubscriptionRevenueHistory(
                provider: .lemonsqueezy, subscriptionID: "\(n)",
                events: [
                    .init(dedupKey: "a\(n)", event: movements.event(.subscriptionCreated, "2026-11-02T10:00:00Z", status: "active", variant: "101")),
                    // Down to a normal plan: a contraction as large as the plan itself.
                    .init(dedupKey: "b\(n)", event: movements.event(.subscriptionUpdated, "2026-11-10T10:00:00Z", status: "active", variant: "102")),
                    .init(dedupKey: "c\(n)", event: movements.event(.subscriptionUpdated, "2026-11-20T10:00:00Z", status: "active", variant: "101")),
                ], prices: book)
        }
        let from = movements.date("2026-11-01T00:00:00Z"), to = movements.date("2026-12-01T00:00:00Z")
        let rows = RevenueReport.build(
            histories: histories, returns: [], period: ReportPeriod(from: from, to: to, granularity: .week), asOf: to)
        #expect(!rows.isEmpty)
        #expect(rows.last?.mrrEnd == .max, "three huge plans held at the maximum")
        #expect(rows.allSatisfy { $0.mrrStartPlusMovements >= .min && $0.activeSubscribersEnd <= 3 })
    }
}
