/// Lemon Squeezy's subscription statuses (its "Subscription object" docs) and
/// what each means for access.
enum LemonSqueezyStatus: String, CaseIterable {
    case onTrial = "on_trial"
    case active
    case pastDue = "past_due"
    case unpaid
    case cancelled
    case paused
    case expired

    var phase: SubscriptionPhase {
        switch self {
        case .onTrial: .trialing
        case .active: .renewing
        case .pastDue: .pastDue
        case .unpaid: .unpaid
        case .cancelled: .cancelled
        case .paused: .paused
        case .expired: .ended
        }
    }
}
