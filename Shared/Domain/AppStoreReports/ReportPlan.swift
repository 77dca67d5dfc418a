import BillingModel
import Foundation

/// What to report to Apple next for one token: a pure function of the
/// token, the money movements of the purchase it led to (in the log's
/// order), and the line items Apple has already accepted. The reporter's
/// store gives each planned report a request identifier and keeps it until
/// Apple answers, so a restart resends the same report, never a new one.
///
/// Rules (docs/app-store.md, "Reports to Apple"):
/// - one line item per report, so Apple's refusal of one line (a
///   dead letter) never holds back the others;
/// - a line that references another (a renewal its start, a refund its
///   charge) waits until Apple has accepted that one: a refund the log
///   read before its purchase was reported goes after it;
/// - a token that led to no movement is reported `NO_LINE_ITEM` once its
///   checkout is older than `noPurchaseAfter` (Apple reminds of unreported
///   tokens ten days after their creation), unless it was already;
/// - amounts: the providers' minor units turned into Apple's milli-units;
///   the log carries no tax split, so the amount is reported as tax
///   inclusive and exclusive with a tax of zero, and `taxCountry` is the
///   storefront (see docs/app-store.md for this limit).
public struct ReportPlan: Sendable, Equatable {
    /// The token as the checkout recorded it.
    public struct Token: Sendable, Equatable {
        public var externalPurchaseID: String
        public var tokenType: String?
        /// ISO 3166-1 alpha-3, as StoreKit's storefront names it.
        public var storefront: String
        /// When the checkout that carried it was opened.
        public var firstSeen: Date

        public init(externalPurchaseID: String, tokenType: String?, storefront: String, firstSeen: Date) {
            self.externalPurchaseID = externalPurchaseID
            self.tokenType = tokenType
            self.storefront = storefront
            self.firstSeen = firstSeen
        }
    }

    /// One report to send: its line item (nil for `NO_LINE_ITEM`).
    public struct Planned: Sendable, Equatable {
        /// The line item's id, or `no-line-item:<token>` for a token without purchase.
        public var key: String
        public var status: ExternalPurchaseReport.Status
        public var lineItem: ExternalPurchaseReport.LineItem?

        /// The report, with the request identifier the store gave it.
        public func report(for token: Token, requestIdentifier: String) -> ExternalPurchaseReport {
            ExternalPurchaseReport(
                requestIdentifier: requestIdentifier, externalPurchaseId: token.externalPurchaseID, tokenType: token.tokenType, status: status,
                lineItems: lineItem.map { [$0] })
        }
    }

    /// The reports due for `token`, in the order they must be sent.
    /// - Parameters:
    ///   - movements: the purchase's movements, oldest first.
    ///   - accepted: keys Apple has accepted (line item ids, and the no-line key).
    ///   - pending: keys already planned and not yet answered (they are sent as they are, not planned again).
    public static func due(
        for token: Token, movements: [PurchaseMovement], accepted: Set<String>, pending: Set<String> = [], now: Date, noPurchaseAfter: TimeInterval
    ) -> [Planned] {
        if movements.isEmpty {
            let key = noLineItemKey(token.externalPurchaseID)
            guard now.timeIntervalSince(token.firstSeen) >= noPurchaseAfter, !accepted.contains(key), !pending.contains(key) else { return [] }
            return [Planned(key: key, status: .noLineItem, lineItem: nil)]
        }
        let byKey = Dictionary(movements.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        return movements.compactMap { movement in
            guard !accepted.contains(movement.key), !pending.contains(movement.key) else { return nil }
            if let reference = movement.reference, !accepted.contains(reference) { return nil }
            return Planned(
                key: movement.key, status: .lineItem, lineItem: lineItem(movement, in: movements, byKey: byKey, storefront: token.storefront))
        }
    }

    public static func noLineItemKey(_ externalPurchaseID: String) -> String { "no-line-item:\(externalPurchaseID)" }

    static func lineItem(
        _ movement: PurchaseMovement, in movements: [PurchaseMovement], byKey: [String: PurchaseMovement], storefront: String
    ) -> ExternalPurchaseReport.LineItem {
        let currency = movement.currency.uppercased()
        let amount = milliUnits(movement.amount, currency: currency)
        var line = ExternalPurchaseReport.LineItem(
            lineItemId: movement.key, referenceLineItemId: movement.reference, creationDate: milliseconds(movement.at), eventType: "BUY",
            productType: nil, productIdentifier: movement.productID, quantity: 1, pricingCurrency: currency, reportingCurrency: currency,
            amountTaxExclusive: amount, amountTaxInclusive: amount, netAmountTaxExclusive: amount, taxAmount: 0, taxCountry: storefront)
        switch movement.kind {
        case .oneTimeBuy:
            line.productType = "ONE_TIME_BUY"
            line.netAmountTaxExclusive = amount - refunded(movement.key, in: movements, through: nil)
        case .subscriptionStart, .renewal:
            line.productType = "SUBSCRIPTION"
            line.subscriptionEvent = movement.reference == nil ? "SUBSCRIPTION_START" : "RENEWAL"
            line.subscriptionStartDate = movement.periodStart.map(milliseconds)
            line.subscriptionEndDate = movement.periodEnd.map(milliseconds)
            line.subscriptionDaysOfPaidService = paidDays(through: movement, in: movements)
            line.netAmountTaxExclusive = amount - refunded(movement.key, in: movements, through: nil)
        case .refund(let charge):
            line.eventType = "REFUND"
            line.productIdentifier = nil
            line.quantity = nil
            let charged = byKey[charge].map { milliUnits($0.amount, currency: currency) } ?? amount
            line.netAmountTaxExclusive = charged - refunded(charge, in: movements, through: movement)
        }
        return line
    }

    /// Milli-units refunded of `charge`, up to and including `last` (all when nil).
    static func refunded(_ charge: String, in movements: [PurchaseMovement], through last: PurchaseMovement?) -> Int64 {
        var total: Int64 = 0
        for movement in movements {
            if case .refund(let of) = movement.kind, of == charge { total += milliUnits(movement.amount, currency: movement.currency.uppercased()) }
            if movement.key == last?.key { break }
        }
        return total
    }

    /// Days of paid service of the subscription up to and including `movement`.
    static func paidDays(through movement: PurchaseMovement, in movements: [PurchaseMovement]) -> Int {
        let start = movement.reference ?? movement.key
        var days = 0
        for other in movements {
            let belongs = other.key == start || other.kind == .renewal(start: start)
            if belongs, let from = other.periodStart, let to = other.periodEnd {
                days += max(0, Int((to.timeIntervalSince(from) / 86_400).rounded()))
            }
            if other.key == movement.key { break }
        }
        return days
    }

    /// Apple's milli-units of `minorUnits` (cents: ×10; yen: ×1000; fils: ×1).
    static func milliUnits(_ minorUnits: Int64, currency: String) -> Int64 {
        var factor: Int64 = 1
        for _ in 0..<max(0, 3 - MoneyFormatter.exponent(of: currency)) { factor *= 10 }
        return minorUnits * factor
    }

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
}
