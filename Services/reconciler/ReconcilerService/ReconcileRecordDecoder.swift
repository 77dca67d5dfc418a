import Timing
import Foundation
import Kafka
import BillingModel
import Webhooks
import Providers

/// Which provider objects a consumed record touches.
public enum ReconcileRecordDecoder {
    public enum Decoded: Sendable, Equatable {
        /// Fetch these (possibly none: a webhook about a customer only).
        case requests([ReconcileRequest])
        /// Nothing to fetch by design (a `claim_by_email` command, an unknown kind).
        case ignored(String)
        /// The record cannot be read; the projector dead-letters it, the reconciler skips it.
        case unreadable(String)
    }

    /// - Parameter commandDelay: how long after a cancel or resume command's
    ///   request its object is fetched (a `refresh_requested` is fetched at once).
    public static func decode(_ record: KafkaConsumerRecord, commandDelay: Duration) -> Decoded {
        guard let value = record.value else { return .unreadable("record has no value") }
        switch record.topic {
        case Topics.webhooks:
            guard let envelope = try? RecordCoding.decode(WebhookEnvelope.self, from: value) else {
                return .unreadable("undecodable webhook envelope")
            }
            do {
                return .requests(requests(for: try ProviderWebhooks.keys(envelope), envelope: envelope))
            } catch {
                return .unreadable("webhook payload not understood: \(error.description)")
            }
        case Topics.commands:
            let command: SubscriptionCommand
            switch try? CommandRecord.decode(value) {
            case .purchase(let purchase)?: command = purchase
            case .userMerge?: return .ignored("a user merge changes no provider object")
            case .grant?: return .ignored("a grant changes no provider object")
            case nil: return .unreadable("undecodable command")
            }
            switch command.kind {
            case .cancelRequested, .resumeRequested, .refundRequested, .planChangeRequested:
                // A refund of a subscription's payment may change the
                // subscription too (a provider may end it): fetched after the
                // same delay as a cancel. An order's refund is its webhook's to tell.
                guard command.purchaseType == .subscription, !command.subscriptionID.isEmpty else { return .ignored("command names no subscription") }
                let trigger = ReconcileTrigger.command(
                    command.commandID, requestedAt: command.requestedAt, notBefore: command.requestedAt.addingTimeInterval(commandDelay.inSeconds))
                return .requests([ReconcileRequest(target: EntityRef(command.provider, .subscription, command.subscriptionID), trigger: trigger)])
            case .refreshRequested:
                // Nothing changed at the provider: the subscription's period
                // ended without news, so its state is fetched now, not after a delay.
                guard command.purchaseType == .subscription, !command.subscriptionID.isEmpty else { return .ignored("command names no subscription") }
                let trigger = ReconcileTrigger.command(command.commandID, requestedAt: command.requestedAt, notBefore: command.requestedAt)
                return .requests([ReconcileRequest(target: EntityRef(command.provider, .subscription, command.subscriptionID), trigger: trigger)])
            case .claimByEmail, .redeem, .other:
                return .ignored("\(command.kind.rawValue) changes no provider object")
            }
        default:
            return .unreadable("record from unexpected topic \(record.topic.prefix(200))")
        }
    }

    /// The objects the event names, as its provider's API part says
    /// (``Providers/APIProviding/fetchTargets(for:)``): Lemon Squeezy's
    /// subscription, else its order; Paystack's subscription and transaction.
    static func requests(for event: BillingEvent, envelope: WebhookEnvelope) -> [ReconcileRequest] {
        let trigger = ReconcileTrigger.webhook(envelope.id, receivedAt: envelope.receivedAt)
        let targets = event.provider.apiRules.fetchTargets(for: event).map { EntityRef(event.provider, $0.entity, $0.id) }
        return targets.map { ReconcileRequest(target: $0, trigger: trigger, customerID: event.customerID) }
    }
}
