/// What a subscription's plan costs per billing period, as a payload states
/// it: the recurring price that monthly recurring revenue is computed from
/// (docs/revenue.md). Kept apart from ``BillingEvent/amount``, which is what
/// one charge or invoice came to (a first charge, a proration, a partial
/// period) and not the plan's price.
public struct RecurringPrice: Codable, Sendable, Hashable {
    /// Price per period in minor units of ``currency``.
    public var amount: Int64
    /// ISO-4217, uppercase.
    public var currency: String
    public var interval: BillingInterval

    public init(amount: Int64, currency: String, interval: BillingInterval) {
        self.amount = amount
        self.currency = currency.uppercased()
        self.interval = interval
    }
}
