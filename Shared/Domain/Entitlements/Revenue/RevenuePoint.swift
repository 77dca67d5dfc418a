import Foundation
import BillingModel

/// One subscription's revenue standing from a moment on, until its next point.
public struct RevenuePoint: Sendable, Hashable {
    public var at: Date
    /// Paying (MRR counts when the price is known).
    public var paying: Bool
    public var trialing: Bool
    public var inGrace: Bool
    /// The price in force; nil when neither an event nor the catalog gave one.
    public var price: RecurringPrice?
    /// Payments that failed at this point (0 or 1).
    public var failedPayments: Int

    /// Minor units a month: 0 unless paying with a known price.
    public var mrr: Int64 { paying ? price?.monthlyMinorUnits ?? 0 : 0 }
}
