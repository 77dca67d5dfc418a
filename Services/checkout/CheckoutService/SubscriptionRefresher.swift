import Foundation
import BillingModel
import ProjectionStore
import Entitlements
import Telemetry

/// Makes a subscription whose paid period ended without a renewal be fetched
/// from the provider at once rather than at the reconciler's next sweep.
///
/// When a status or entitlements read finds one of the caller's
/// subscriptions past its period end while its status still expects a charge
/// (``AccessRules/overduePeriodEnd(_:at:)``), a
/// ``SubscriptionCommand/Kind/refreshRequested`` command goes to
/// `storefront.commands.v1`; the reconciler fetches the subscription and
/// publishes its snapshot, which the projector folds. The answer to the app
/// does not wait for any of it: it follows the access rules (the renewal
/// grace) on what the projection holds now, and the publish itself runs in
/// the background, so a slow or absent broker never slows the read. A failed
/// publish is logged and counted, never an error for the app.
///
/// Only within ``window(_:)`` after the period end: later, the reconciler's
/// sweep is the net (it publishes every object changed since the previous
/// one), and a subscription the provider has forgotten is not fetched on
/// every read for ever. Subscriptions of the other mode (test vs live) are
/// skipped: they grant nothing here and this deployment's keys cannot fetch them.
struct SubscriptionRefresher: Sendable {
    let publisher: any RecordPublisher
    let limiter: CommandLimiter
    let metrics: CheckoutMetrics

    /// The shortest time after a period end in which reads ask for a refresh
    /// (the renewal grace when it is longer).
    static let minimumWindow: TimeInterval = 86_400

    /// How long after a period end a read still asks for a refresh: the
    /// renewal grace, at least ``minimumWindow`` (with no grace, access ends at
    /// the period end, and a fetch that finds the renewal brings it back at once).
    static func window(_ policy: AccessPolicy) -> TimeInterval {
        max(policy.renewalGrace, minimumWindow)
    }

    /// Publishes a refresh command for each overdue subscription in
    /// `snapshot` the limiter admits, in a background task.
    ///
    /// - Returns: that task (tests await it), or nil when nothing was asked.
    @discardableResult
    func refreshOverdue(in snapshot: SubscriptionStatusSnapshot, for user: AppUser, logger: Logger) -> Task<Void, Never>? {
        let policy = snapshot.resolver.policy
        let now = snapshot.now
        var commands: [SubscriptionCommand] = []
        for subscription in snapshot.subscriptions {
            guard policy.grants(testMode: subscription.testMode), let end = AccessRules.overduePeriodEnd(subscription, at: now),
                now.timeIntervalSince(end) < Self.window(policy)
            else { continue }
            let command = SubscriptionCommand(
                commandID: UUID().uuidString.lowercased(), kind: .refreshRequested, provider: subscription.provider,
                subscriptionID: subscription.subscriptionID, appUserID: user.id, requestedAt: now)
            switch limiter.admit(command.key, at: now) {
            case .admitted: commands.append(command)
            case .tooSoon: metrics.refreshRequests(.limited).increment()
            case .full: metrics.refreshRequests(.dropped).increment()
            }
        }
        guard !commands.isEmpty else { return nil }
        let publisher = publisher
        let metrics = metrics
        return Task {
            for command in commands {
                do {
                    try await publisher.publish(command, topic: Topics.commands, key: command.key)
                    metrics.refreshRequests(.published).increment()
                    logger.info(
                        "refresh requested for a subscription past its period end",
                        metadata: [
                            "provider": command.provider.rawValue, "subscription.id": command.subscriptionID, "command.id": command.commandID,
                        ])
                } catch {
                    metrics.refreshRequests(.failed).increment()
                    logger.warning(
                        "refresh request not published; the sweep or a later read covers it",
                        metadata: [
                            "provider": command.provider.rawValue, "subscription.id": command.subscriptionID, "error": String(describing: error),
                        ])
                }
            }
        }
    }
}
