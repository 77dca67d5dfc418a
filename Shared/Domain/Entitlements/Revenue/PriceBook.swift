import BillingModel

/// Prices by provider and variant, from the catalog: the fallback for a
/// subscription whose events never state their price (every Lemon Squeezy
/// one, whose payloads name the variant only, and events logged before
/// projection migration 8). Today's catalog price, so a price changed since
/// is not seen: events that state their price always win.
public struct PriceBook: Sendable {
    private var prices: [String: RecurringPrice]

    public init() { prices = [:] }

    /// Sets the price of `variantID` (Paystack: the plan code).
    public mutating func set(_ price: RecurringPrice, provider: Provider, variantID: String) {
        prices[key(provider, variantID)] = price
    }

    public func price(provider: Provider, variantID: String?) -> RecurringPrice? {
        variantID.flatMap { prices[key(provider, $0)] }
    }

    private func key(_ provider: Provider, _ variantID: String) -> String { "\(provider.rawValue):\(variantID)" }
}
