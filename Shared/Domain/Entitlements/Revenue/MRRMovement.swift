/// How one change of a subscription's monthly recurring revenue counts,
/// as Baremetrics and RevenueCat name the movements. The movements of a
/// period add up: MRR at its end = MRR at its start + new + expansion +
/// reactivation − contraction − churn.
public enum MRRMovement: String, Sendable, Hashable, Codable, CaseIterable {
    /// From nothing, for a subscription that never paid before.
    case new
    /// Up, from something (an upgrade, more seats, a longer interval that costs more a month).
    case expansion
    /// Down, to something (a downgrade).
    case contraction
    /// Down to nothing (ended, expired, paused, unpaid).
    case churn
    /// From nothing, for a subscription that paid before (resumed, unpaused, recovered).
    case reactivation

    /// The movement of a change from `before` to `after` (minor units a
    /// month, 0 when not paying); nil when nothing changed.
    /// - Parameter hadRevenueBefore: whether the subscription ever had MRR
    ///   before this change (tells reactivation from new).
    public static func classify(from before: Int64, to after: Int64, hadRevenueBefore: Bool) -> MRRMovement? {
        switch (before, after) {
        case _ where before == after: nil
        case (0, _): hadRevenueBefore ? .reactivation : .new
        case (_, 0): .churn
        case _ where after > before: .expansion
        default: .contraction
        }
    }

    /// The signed change this movement made: negative for contraction and churn.
    public static func signed(from before: Int64, to after: Int64) -> Int64 { after.subtractingSaturating(before) }
}
