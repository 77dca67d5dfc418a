import Foundation
import BillingModel
import Entitlements
import ProjectionStore
import SandboxLives
import Webhooks

/// A life's webhooks as the projector reads them, and the projector's
/// per-subscription decisions without its database: what the status
/// endpoint would answer after a given arrival.
struct PureProjection {
    struct Delivery {
        var key: String
        var event: BillingEvent
        var name: String { event.providerEventName }
    }

    let provider: Provider
    /// The life's records in true order, normalised as the projector does
    /// (``ProviderWebhooks/normalize(_:)``), each received `receipt` after it was sent.
    let deliveries: [Delivery]
    /// The life's subscription: the first one its records name.
    let subscriptionID: String

    struct NotUnderstood: Error, CustomStringConvertible { var description: String }

    init(_ life: Life, received: (_ index: Int, _ sentAt: Date) -> Date = { _, sent in sent.addingTimeInterval(1) }) throws {
        guard let provider = Provider(rawValue: life.provider) else { throw NotUnderstood(description: "no provider \(life.provider)") }
        self.provider = provider
        deliveries = try life.records.enumerated().map { index, record in
            let envelope = ProviderWebhooks.read(provider, body: record.body, receivedAt: received(index, record.sentAt)).envelope
            return Delivery(key: envelope.id, event: try ProviderWebhooks.normalize(envelope))
        }
        guard let first = deliveries.lazy.compactMap(\.event.subscriptionID).first else {
            throw NotUnderstood(description: "\(life.name): no record names a subscription")
        }
        subscriptionID = first
    }

    /// The row after `batches` (indices into ``deliveries``), decided the
    /// projector's way (``SubscriptionFold`` as `ProjectionWriter.fold` uses
    /// it): the first delivery of a dedup key is logged, later ones change
    /// nothing; a batch whose new events of the subscription all follow the
    /// row's last one extends the row; any other batch, and one with an event
    /// the log links to the subscription (one that names none: a Paystack
    /// charge, a refund, a dispute), folds the whole log again.
    func row(after batches: [[Int]]) -> SubscriptionState? {
        var log: [String: SubscriptionFold.LoggedEvent] = [:]
        var state: SubscriptionState?
        for batch in batches {
            var fresh: [SubscriptionFold.LoggedEvent] = []
            var linked = false
            for index in batch {
                let delivery = deliveries[index]
                guard log[delivery.key] == nil else { continue }
                let logged = SubscriptionFold.LoggedEvent(dedupKey: delivery.key, event: delivery.event)
                log[delivery.key] = logged
                if delivery.event.subscriptionID == subscriptionID {
                    fresh.append(logged)
                } else if delivery.event.subscriptionID == nil {
                    linked = true
                }
            }
            guard !fresh.isEmpty || linked else { continue }
            if !linked, let current = state, let extended = SubscriptionFold.extend(current, with: fresh) {
                state = extended
            } else {
                let members = log.values.filter { $0.event.subscriptionID == subscriptionID || $0.event.subscriptionID == nil }
                state = SubscriptionFold.fold(provider: provider, subscriptionID: subscriptionID, events: Array(members))
            }
        }
        return state
    }

    static let resolver = EntitlementResolver(policy: AccessPolicy(testDeployment: true))

    /// `GET /api/subscription/status` for an owner of `row` alone, at `now`.
    static func answer(_ row: SubscriptionState?, at now: Date) -> SubscriptionStatusResponse {
        SubscriptionStatusSnapshot(now: now, subscriptions: row.map { [$0] } ?? [], orders: [], pendingCheckout: nil, resolver: resolver).response
    }

    /// `answer` with every time cut to the whole second (the providers' own precision).
    static func wholeSeconds(_ answer: SubscriptionStatusResponse) -> SubscriptionStatusResponse {
        func cut(_ date: inout Date?) { date = date.map { Date(timeIntervalSince1970: $0.timeIntervalSince1970.rounded(.down)) } }
        var answer = answer
        cut(&answer.renewsAt)
        cut(&answer.endsAt)
        cut(&answer.nextBillingDate)
        answer.entitlements = answer.entitlements.map { info in
            var info = info
            for path in [
                \EntitlementInfo.expiresAt, \.latestPurchaseAt, \.originalPurchaseAt, \.unsubscribeDetectedAt, \.billingIssueDetectedAt,
                \.disputeDetectedAt, \.refundedAt,
            ] {
                cut(&info[keyPath: path])
            }
            return info
        }
        return answer
    }

    /// The fields in which two values differ (by their mirrors), for a readable failure.
    static func differences<T>(_ a: T, _ b: T) -> String {
        let left = Mirror(reflecting: a).children, right = Array(Mirror(reflecting: b).children)
        return zip(left, right).compactMap { l, r in
            let (x, y) = (String(describing: l.value), String(describing: r.value))
            return x == y ? nil : "\(l.label ?? "?"): \(x) ≠ \(y)"
        }.joined(separator: "; ")
    }
}
