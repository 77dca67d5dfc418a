import Foundation
import BillingModel
import Testing

@testable import Entitlements

/// The report by campaign's pure part: which checkout a subscription counts
/// for, and how counts and the revenue report's new MRR make rows. No database.
@Suite struct CampaignReportTests {
    static let november = ReportPeriod(from: date("2026-11-01T00:00:00Z"), to: date("2026-12-01T00:00:00Z"), granularity: .month)

    @Test func aSubscriptionCountsForOneCheckoutItsOwnEventsNameBeforeOneLinkedByCard() {
        let history = Self.history("1", began: "2026-11-10T12:00:00Z")
        let chosen = CampaignReport.attribute(
            [
                Self.link("1", checkout: "card", ref: "card", opened: "2026-11-10T11:00:00Z", throughCard: true),
                Self.link("1", checkout: "named", ref: "named", opened: "2026-11-01T10:00:00Z", throughCard: false),
            ], histories: [history])
        #expect(chosen.keys.map { $0 } == ["named"])
    }

    @Test func amongCheckoutsSharingACardTheLatestOpenedBeforeItBeganElseTheEarliest() {
        let links = ["early": "2026-11-02T10:00:00Z", "late": "2026-11-20T10:00:00Z", "after": "2026-11-25T10:00:00Z"].map {
            Self.link("1", checkout: $0.key, ref: $0.key, opened: $0.value, throughCard: true)
        }
        #expect(CampaignReport.attribute(links, histories: [Self.history("1", began: "2026-11-21T12:00:00Z")]).keys.map { $0 } == ["late"])
        #expect(CampaignReport.attribute(links, histories: [Self.history("1", began: "2026-11-05T12:00:00Z")]).keys.map { $0 } == ["early"])
        // Every checkout opened after the subscription's first event (clocks apart): the earliest.
        #expect(CampaignReport.attribute(links, histories: [Self.history("1", began: "2026-11-01T12:00:00Z")]).keys.map { $0 } == ["early"])
        // A subscription no checkout made is in no campaign.
        #expect(CampaignReport.attribute(links, histories: [Self.history("2", began: "2026-11-21T12:00:00Z")]).isEmpty)
    }

    @Test func rowsAddCountsAndTheRevenueReportsNewMRRPerTagEveryBucketUntaggedLast() {
        let period = ReportPeriod(from: Self.november.from, to: Self.november.to, granularity: .week)
        let counts = [
            CampaignReport.Counts(periodStart: Self.date("2026-11-02T00:00:00Z"), ref: nil, checkoutsOpened: 1),
            CampaignReport.Counts(periodStart: Self.date("2026-11-02T00:00:00Z"), ref: "spring", checkoutsOpened: 2),
            CampaignReport.Counts(periodStart: Self.date("2026-11-02T00:00:00Z"), ref: "spring", checkoutsCompleted: 1),
            // A tag with nothing in the period is left out.
            CampaignReport.Counts(periodStart: Self.date("2026-11-09T00:00:00Z"), ref: "winter"),
        ]
        let rows = CampaignReport.build(
            counts: counts, links: [Self.link("1", checkout: "c", ref: "spring", opened: "2026-11-03T10:00:00Z", throughCard: false)],
            histories: [Self.history("1", began: "2026-11-03T12:00:00Z")], period: period, asOf: Self.november.to)
        #expect(rows.count == 2 * 6)
        #expect(rows.prefix(2).map(\.ref) == ["spring", nil])
        let spring = rows.filter { $0.ref == "spring" }
        let second = spring[1]
        #expect(second.periodStart == Self.date("2026-11-02T00:00:00Z"))
        #expect(second.checkoutsOpened == 2 && second.checkoutsCompleted == 1)
        #expect(second.newSubscriptions == 1)
        // $12.00 a month, stated by its event: the revenue report's new MRR, in its currency.
        #expect(second.newMRR == ["USD": 1200])
        #expect(spring.map(\.newSubscriptions).reduce(0, +) == 1)
        #expect(rows.filter { $0.ref == nil }.map(\.checkoutsOpened).reduce(0, +) == 1)
    }

    static func link(_ subscription: String, checkout: String, ref: String?, opened: String, throughCard: Bool) -> CampaignReport.Link {
        CampaignReport.Link(
            provider: .lemonsqueezy, subscriptionID: subscription, checkoutID: checkout, ref: ref, openedAt: date(opened), throughCard: throughCard)
    }

    /// A subscription active at `began` at $12.00 a month.
    static func history(_ id: String, began: String) -> SubscriptionRevenueHistory {
        var e = BillingEvent(kind: .subscriptionCreated, provider: .lemonsqueezy, providerEventName: "x", entityKey: "lemonsqueezy:sub_\(id)")
        e.subscriptionID = id
        e.status = "active"
        e.variantID = "101"
        e.orderingTimestamp = date(began)
        e.recurringPrice = RecurringPrice(amount: 1200, currency: "USD", interval: .init(unit: .month))
        return SubscriptionRevenueHistory(provider: .lemonsqueezy, subscriptionID: id, events: [.init(dedupKey: "a", event: e)], prices: PriceBook())
    }

    static func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text) ?? .distantPast }
}
