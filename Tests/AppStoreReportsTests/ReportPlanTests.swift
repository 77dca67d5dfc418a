import AppStoreReports
import Foundation
import Testing

/// What the reporter sends next for a token, from its purchase's movements
/// and what Apple has accepted: no server.
@Suite struct ReportPlanTests {
    static let day: TimeInterval = 86_400
    static let start = Date(timeIntervalSince1970: 1_780_000_000)
    static let token = ReportPlan.Token(externalPurchaseID: "SANDBOX_tok-1", tokenType: "ACQUISITION", storefront: "NLD", firstSeen: start)

    static let purchase = PurchaseMovement(
        key: "stripe:in_1", kind: .subscriptionStart, at: start.addingTimeInterval(60), amount: 999, currency: "eur", productID: "premium",
        periodStart: start.addingTimeInterval(60), periodEnd: start.addingTimeInterval(60 + 30 * day))
    static let renewal = PurchaseMovement(
        key: "stripe:in_2", kind: .renewal(start: "stripe:in_1"), at: start.addingTimeInterval(60 + 30 * day), amount: 999, currency: "EUR",
        productID: "premium", periodStart: start.addingTimeInterval(60 + 30 * day), periodEnd: start.addingTimeInterval(60 + 61 * day))
    static let partialRefund = PurchaseMovement(
        key: "stripe:re_1", kind: .refund(of: "stripe:in_2"), at: start.addingTimeInterval(32 * day), amount: 400, currency: "EUR",
        productID: "premium")

    func due(_ movements: [PurchaseMovement], accepted: Set<String> = [], pending: Set<String> = [], now: Date = start) -> [ReportPlan.Planned] {
        ReportPlan.due(for: Self.token, movements: movements, accepted: accepted, pending: pending, now: now, noPurchaseAfter: 7 * Self.day)
    }

    @Test func thePurchaseComesFirstAndItsLineIsApplesSubscriptionStartInMilliUnits() throws {
        let planned = due([Self.purchase, Self.renewal, Self.partialRefund])
        #expect(planned.map(\.key) == ["stripe:in_1"])
        let line = try #require(planned.first?.lineItem)
        #expect(line.eventType == "BUY" && line.productType == "SUBSCRIPTION" && line.subscriptionEvent == "SUBSCRIPTION_START")
        #expect(line.amountTaxInclusive == 9_990 && line.pricingCurrency == "EUR" && line.taxCountry == "NLD")
        #expect(line.subscriptionDaysOfPaidService == 30)
        #expect(line.creationDate == Int64(Self.purchase.at.timeIntervalSince1970 * 1000))
        let report = try #require(planned.first).report(for: Self.token, requestIdentifier: "req-1")
        #expect(report.status == .lineItem && report.externalPurchaseId == "SANDBOX_tok-1" && report.lineItems?.count == 1)
    }

    @Test func aRenewalFollowsItsStartAndARefundItsCharge() throws {
        let afterStart = due([Self.purchase, Self.renewal, Self.partialRefund], accepted: ["stripe:in_1"])
        #expect(afterStart.map(\.key) == ["stripe:in_2"])
        #expect(afterStart.first?.lineItem?.referenceLineItemId == "stripe:in_1")
        #expect(afterStart.first?.lineItem?.subscriptionEvent == "RENEWAL")
        #expect(afterStart.first?.lineItem?.subscriptionDaysOfPaidService == 61)
        // The renewal's net already accounts for the refund the log holds.
        #expect(afterStart.first?.lineItem?.netAmountTaxExclusive == 5_990)
        let refund = try #require(due([Self.purchase, Self.renewal, Self.partialRefund], accepted: ["stripe:in_1", "stripe:in_2"]).first?.lineItem)
        #expect(refund.eventType == "REFUND" && refund.referenceLineItemId == "stripe:in_2" && refund.productType == nil)
        #expect(refund.amountTaxExclusive == 4_000 && refund.netAmountTaxExclusive == 5_990)
    }

    @Test func nothingAcceptedOrPendingIsPlannedAgain() {
        let all: Set<String> = ["stripe:in_1", "stripe:in_2", "stripe:re_1"]
        #expect(due([Self.purchase, Self.renewal, Self.partialRefund], accepted: all).isEmpty)
        #expect(due([Self.purchase], pending: ["stripe:in_1"]).isEmpty)
    }

    @Test func aTokenWithoutPurchaseIsReportedAsSuchOnceItsTimeIsUp() throws {
        #expect(due([], now: Self.start.addingTimeInterval(6 * Self.day)).isEmpty)
        let late = due([], now: Self.start.addingTimeInterval(7 * Self.day))
        #expect(late.map(\.status) == [.noLineItem])
        #expect(late.first?.lineItem == nil)
        let key = ReportPlan.noLineItemKey("SANDBOX_tok-1")
        #expect(due([], accepted: [key], now: Self.start.addingTimeInterval(8 * Self.day)).isEmpty)
    }

    @Test func milliUnitsFollowTheCurrencysMinorUnit() throws {
        let yen = PurchaseMovement(key: "p:1", kind: .oneTimeBuy, at: Self.start, amount: 1_200, currency: "JPY", productID: "pack")
        let dinar = PurchaseMovement(key: "p:2", kind: .oneTimeBuy, at: Self.start, amount: 1_250, currency: "KWD", productID: "pack")
        #expect(due([yen]).first?.lineItem?.amountTaxInclusive == 1_200_000)
        #expect(due([yen]).first?.lineItem?.productType == "ONE_TIME_BUY")
        #expect(due([dinar]).first?.lineItem?.amountTaxInclusive == 1_250)
    }
}
