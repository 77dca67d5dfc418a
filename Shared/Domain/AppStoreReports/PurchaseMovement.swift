import Foundation

/// One money movement of a purchase that a token led to, as the event log
/// tells it: the first charge, each renewal, each refund. The reporter turns
/// each into one line item.
public struct PurchaseMovement: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A one-time purchase's charge.
        case oneTimeBuy
        /// A subscription's first charge.
        case subscriptionStart
        /// A later charge of the subscription the start (its key) began.
        case renewal(start: String)
        /// Money back for the charge `of` (its key).
        case refund(of: String)
    }

    /// Stable and unique per app: becomes Apple's `lineItemId`, so the same
    /// movement read twice is the same line.
    public var key: String
    public var kind: Kind
    public var at: Date
    /// In the currency's minor units (cents), as the providers state them; positive, also for refunds.
    public var amount: Int64
    public var currency: String
    public var productID: String
    /// The paid period of a subscription charge.
    public var periodStart: Date?
    public var periodEnd: Date?

    public init(
        key: String, kind: Kind, at: Date, amount: Int64, currency: String, productID: String, periodStart: Date? = nil, periodEnd: Date? = nil
    ) {
        self.key = key
        self.kind = kind
        self.at = at
        self.amount = amount
        self.currency = currency
        self.productID = productID
        self.periodStart = periodStart
        self.periodEnd = periodEnd
    }

    /// The key of the line this one must follow at Apple (a renewal's start, a refund's charge).
    public var reference: String? {
        switch kind {
        case .oneTimeBuy, .subscriptionStart: nil
        case .renewal(let start): start
        case .refund(let charge): charge
        }
    }
}
