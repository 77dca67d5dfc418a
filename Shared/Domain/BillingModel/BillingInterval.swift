/// How often a subscription renews: `count` × `unit` (e.g. 3 months).
public struct BillingInterval: Codable, Sendable, Hashable {
    /// The calendar unit of a billing period.
    public enum Unit: String, Codable, Sendable, CaseIterable {
        /// Paystack offers `hourly` plans (used mostly for testing).
        case hour
        case day, week, month, year
    }

    public var unit: Unit
    /// Number of units per period, at least 1.
    public var count: Int

    public init(unit: Unit, count: Int = 1) {
        self.unit = unit
        self.count = max(1, count)
    }

    /// Maps Lemon Squeezy's variant/price interval (`day|week|month|year`) and count.
    public init?(lemonSqueezyInterval interval: String?, count: Int?) {
        guard let interval, let unit = Unit(rawValue: interval.lowercased()), unit != .hour else { return nil }
        self.init(unit: unit, count: count ?? 1)
    }

    /// Maps a Paystack plan interval: `hourly`, `daily`, `weekly`, `monthly`,
    /// `quarterly` (3 months), `biannually` (6 months), `annually`.
    public init?(paystackInterval interval: String?) {
        switch interval?.lowercased() {
        case "hourly": self.init(unit: .hour)
        case "daily": self.init(unit: .day)
        case "weekly": self.init(unit: .week)
        case "monthly": self.init(unit: .month)
        case "quarterly": self.init(unit: .month, count: 3)
        case "biannually": self.init(unit: .month, count: 6)
        case "annually", "yearly": self.init(unit: .year)
        default: return nil
        }
    }
}
