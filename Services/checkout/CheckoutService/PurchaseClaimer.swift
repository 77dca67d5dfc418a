import Foundation
import BillingModel
import ProjectionStore
import Telemetry
import Entitlements

/// Makes the email fallback permanent: a purchase nobody owned, found for the
/// caller through their verified email, is claimed for them with a
/// ``SubscriptionCommand/Kind/claimByEmail`` command. The projector records
/// the owner (only if there still is none), so the first verified match
/// keeps it for good and the claim stays in the audit trail.
///
/// Until the projector has applied a claim, every read still finds the
/// purchase unowned; the ``limiter`` keeps those reads from publishing the
/// same claim again (one per user and purchase per interval; a claim whose
/// publish failed is released, so the next read tries again).
struct PurchaseClaimer: Sendable {
    let publisher: any RecordPublisher
    let limiter: CommandLimiter
    let now: @Sendable () -> Date

    /// One minute: longer than the projector normally takes to apply a
    /// claim, short enough that a claim lost with a broker comes back soon.
    static let defaultInterval: TimeInterval = 60

    init(publisher: any RecordPublisher, limiter: CommandLimiter = CommandLimiter(interval: defaultInterval), now: @escaping @Sendable () -> Date) {
        self.publisher = publisher
        self.limiter = limiter
        self.now = now
    }

    /// Claims every unowned purchase in `snapshot` for `user`. A failure is
    /// logged, not thrown: the read it rides on is still right, and the next
    /// read claims again.
    func claimUnowned(in snapshot: SubscriptionStatusSnapshot, for user: AppUser, logger: Logger) async {
        let unowned =
            snapshot.subscriptions.filter { $0.appUserID == nil }.map { ($0.provider, $0.subscriptionID, PurchaseType.subscription) }
            + snapshot.orders.filter { $0.appUserID == nil }.map { ($0.provider, $0.orderID, PurchaseType.order) }
        for (provider, purchaseID, type) in unowned {
            let at = now()
            let limiterKey = "\(user.id)\u{0}\(provider.rawValue):\(type.rawValue):\(purchaseID)"
            guard limiter.admit(limiterKey, at: at) == .admitted else { continue }
            var command = SubscriptionCommand(
                commandID: UUID().uuidString.lowercased(), kind: .claimByEmail, provider: provider,
                subscriptionID: purchaseID, appUserID: user.id, requestedAt: at)
            command.purchaseType = type
            do {
                try await publisher.publish(command, topic: Topics.commands, key: command.key)
                logger.info(
                    "unowned purchase claimed by verified email",
                    metadata: [
                        "provider": provider.rawValue, "purchase.type": type.rawValue, "purchase.id": purchaseID, "command.id": command.commandID,
                    ])
            } catch {
                limiter.release(limiterKey)
                logger.warning("claim not published; the next read retries", metadata: ["error": String(describing: error)])
            }
        }
    }
}
