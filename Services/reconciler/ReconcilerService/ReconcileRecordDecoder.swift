import Timing
import Foundation
import Kafka
import BillingModel
import Webhooks

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
                return .requests(requests(for: try ProviderWebhooks.normalize(envelope), envelope: envelope))
            } catch {
                return .unreadable("webhook payload not understood: \(error.description)")
            }
        case Topics.commands:
            guard let command = try? RecordCoding.decode(SubscriptionCommand.self, from: value) else { return .unreadable("undecodable command") }
            switch command.kind {
            case .cancelRequested, .resumeRequested:
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
            case .claimByEmail, .other:
                return .ignored("\(command.kind.rawValue) changes no provider object")
            }
        default:
            return .unreadable("record from unexpected topic \(record.topic.prefix(200))")
        }
    }

    /// Lemon Squeezy: the subscription when the event names one (subscription
    /// and invoice events), else the order (order and license-key events).
    /// Paystack: the subscription (`SUB_…` code) and the transaction
    /// (reference) the event names: charges, invoices and refunds carry a
    /// reference, subscription and invoice events a code.
    static func requests(for event: BillingEvent, envelope: WebhookEnvelope) -> [ReconcileRequest] {
        let trigger = ReconcileTrigger.webhook(envelope.id, receivedAt: envelope.receivedAt)
        var targets: [EntityRef] = []
        switch event.provider {
        case .lemonsqueezy:
            if let id = event.subscriptionID, !id.isEmpty {
                targets.append(EntityRef(.lemonsqueezy, .subscription, id))
            } else if let id = event.orderID, !id.isEmpty {
                targets.append(EntityRef(.lemonsqueezy, .order, id))
            }
        case .paystack:
            if let code = event.subscriptionID, !code.isEmpty { targets.append(EntityRef(.paystack, .subscription, code)) }
            if let reference = event.transactionReference, !reference.isEmpty { targets.append(EntityRef(.paystack, .transaction, reference)) }
        }
        return targets.map { ReconcileRequest(target: $0, trigger: trigger, customerID: event.customerID) }
    }
}
