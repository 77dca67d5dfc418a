import Foundation
import BillingModel
import Testing

@testable import Entitlements

/// `storefront report` and plan changes (docs/plan-changes.md): a
/// subscription moved to another plan keeps its history, so the report
/// counts the change of its MRR as expansion or contraction, never as churn
/// and a new subscription.
@Suite struct PlanChangeRevenueTests {
    static let book: PriceBook = {
        var book = PriceBook()
        book.set(RecurringPrice(amount: 499, currency: "USD", interval: .init(unit: .month)), provider: .lemonsqueezy, variantID: "2")
        book.set(RecurringPrice(amount: 4999, currency: "USD", interval: .init(unit: .year)), provider: .lemonsqueezy, variantID: "3")
        book.set(RecurringPrice(amount: 19_999, currency: "USD", interval: .init(unit: .year)), provider: .lemonsqueezy, variantID: "4")
        return book
    }()

    func event(_ kind: BillingEventKind, _ at: String, variant: String, key: String) -> SubscriptionFold.LoggedEvent {
        var e = BillingEvent(kind: kind, provider: .lemonsqueezy, providerEventName: "x", entityKey: "lemonsqueezy:1")
        e.subscriptionID = "1"
        e.status = "active"
        e.variantID = variant
        e.orderingTimestamp = ISO8601DateFormatter().date(from: at)
        return .init(dedupKey: key, event: e)
    }

    func row(_ events: [SubscriptionFold.LoggedEvent]) throws -> RevenueReportRow {
        let history = SubscriptionRevenueHistory(provider: .lemonsqueezy, subscriptionID: "1", events: events, prices: Self.book)
        let period = ReportPeriod(
            from: ISO8601DateFormatter().date(from: "2026-11-01T00:00:00Z")!, to: ISO8601DateFormatter().date(from: "2026-12-01T00:00:00Z")!,
            granularity: .month)
        return try #require(RevenueReport.build(histories: [history], returns: [], period: period, asOf: period.to).first)
    }

    @Test func monthlyToAnnualIsContractionNotChurnAndNew() throws {
        // 4.99 a month → 49.99 a year (4.17 a month): cheaper a month.
        let row = try row([
            event(.subscriptionCreated, "2026-11-02T10:00:00Z", variant: "2", key: "a"),
            // The plan-change command's observed state, then the provider's webhook saying the same.
            event(.subscriptionObserved, "2026-11-10T10:00:00Z", variant: "3", key: "command:c1"),
            event(.subscriptionUpdated, "2026-11-10T10:00:01Z", variant: "3", key: "b"),
        ])
        #expect(row.newMRR == 499 && row.newSubscriptions == 1)
        #expect(row.contractionMRR == 499 - 417 && row.expansionMRR == 0)
        #expect(row.churnedMRR == 0 && row.churnedSubscriptions == 0)
        #expect(row.mrrEnd == 417 && row.activeSubscribersEnd == 1)
    }

    @Test func anUpgradeIsExpansion() throws {
        let row = try row([
            event(.subscriptionCreated, "2026-11-02T10:00:00Z", variant: "3", key: "a"),
            event(.subscriptionObserved, "2026-11-10T10:00:00Z", variant: "4", key: "command:c1"),
        ])
        #expect(row.expansionMRR == 1667 - 417 && row.contractionMRR == 0 && row.churnedMRR == 0 && row.newSubscriptions == 1)
    }
}
