import Foundation

/// A subscription schedule (`sub_sched_…`) attached to one subscription.
struct STSchedule: Sendable {
    struct Phase: Sendable {
        let priceID: String
        let start: Date
        /// Nil for a last phase that lasts one period of its price.
        let end: Date?
    }

    let id: String
    let subscriptionID: String
    let customerID: String
    var phases: [Phase]
    /// `active`, then `released` (the subscription goes on by itself).
    var status = "active"
    let createdAt: Date

    /// The phase that starts at `date`, after the first: what the subscription becomes then.
    func phase(startingAt date: Date) -> Phase? { phases.dropFirst().first { abs($0.start.timeIntervalSince(date)) < 1 } }
}
