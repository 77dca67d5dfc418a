/// Paystack's subscription statuses (its "Subscriptions" guide) and what each
/// means for access. The guide's table says `completed`, its `subscription.disable`
/// example sends `complete`: both spellings are read.
enum PaystackStatus: String, CaseIterable {
    case active
    case nonRenewing = "non-renewing"
    case attention
    case complete
    case completed
    case cancelled

    var phase: SubscriptionPhase {
        switch self {
        case .active: .renewing
        case .nonRenewing: .nonRenewing
        case .attention: .retryingAfterFailure
        case .complete, .completed, .cancelled: .ended
        }
    }
}
