import BillingModel

extension RecurringPrice {
    /// The price as monthly recurring revenue, in minor units: a year is
    /// 12 months, a week 52/12 of a month, a day 365/12 (Baremetrics' and
    /// RevenueCat's normalization), divided by the interval's count. Rounded
    /// half away from zero to the minor unit once per subscription, so every
    /// total is a sum of whole minor units and adds up exactly. A price too
    /// large for the result is held at `Int64.max` (``Swift/Int64/saturating(_:)``), never a trap.
    public var monthlyMinorUnits: Int64 {
        let perMonth: Double =
            switch interval.unit {
            case .month: 1
            case .year: 1.0 / 12
            case .week: 52.0 / 12
            case .day: 365.0 / 12
            case .hour: 365.0 * 24 / 12
            }
        return .saturating((Double(amount) * perMonth / Double(max(1, interval.count))).rounded(.toNearestOrAwayFromZero))
    }
}
