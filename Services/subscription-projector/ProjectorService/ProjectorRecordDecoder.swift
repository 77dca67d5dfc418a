import Foundation
import Kafka
import BillingModel
import ProjectionStore
import Entitlements
import Webhooks

/// Turns a consumed record into something the projection can apply, or says
/// why it cannot (the record then goes to the dead-letter topic).
public enum ProjectorRecordDecoder {
    /// A record's fate.
    public enum Decoded: Sendable {
        case input(ProjectionInput)
        case deadLetter(reason: String)
    }

    /// Decodes by topic: webhook envelopes and reconciler snapshots are
    /// normalised with the provider's parsers, and their ownership claims
    /// checked with `ownership` (``OwnershipProof/check(_:)``: a user or
    /// checkout id without a valid proof is cleared, stays in `customData`
    /// for audit, and is passed to `unproven`); checkouts and commands are
    /// decoded as published.
    public static func decode(
        _ record: KafkaConsumerRecord, ownership: OwnershipProof, unproven: (BillingEvent) -> Void = { _ in }
    ) -> Decoded {
        func checked(_ event: BillingEvent) -> BillingEvent {
            var event = event
            let claim = event
            if ownership.check(&event) == .unproven { unproven(claim) }
            return event
        }
        guard let value = record.value else { return .deadLetter(reason: "record has no value") }
        switch record.topic {
        case Topics.webhooks:
            let envelope: WebhookEnvelope
            do {
                envelope = try WebhookEnvelope.decodeRecord(value)
            } catch {
                return .deadLetter(reason: "undecodable webhook envelope: \(error.description)")
            }
            guard !envelope.id.isEmpty else { return .deadLetter(reason: "webhook envelope has an empty id") }
            do {
                let event = checked(try ProviderWebhooks.normalize(envelope))
                return .input(
                    .webhook(
                        WebhookDelivery(
                            dedupKey: envelope.id, event: event, receivedAt: envelope.receivedAt, payload: envelope.payload.bytes,
                            sourcePartition: record.partition, sourceOffset: record.offset)))
            } catch {
                return .deadLetter(reason: "webhook payload not understood (\(envelope.provider.rawValue)): \(error.description)")
            }
        case Topics.snapshots:
            let snapshot: ProviderSnapshot
            do {
                snapshot = try RecordCoding.decode(ProviderSnapshot.self, from: value)
            } catch {
                return .deadLetter(reason: "undecodable snapshot record: \(describe(error))")
            }
            guard !snapshot.snapshotID.isEmpty else { return .deadLetter(reason: "snapshot has an empty id") }
            do {
                // A snapshot is logged like a delivery: the provider's body is its payload.
                let event = checked(try ProviderSnapshots.normalize(snapshot))
                return .input(
                    .webhook(
                        WebhookDelivery(
                            dedupKey: "snapshot:\(snapshot.snapshotID)", event: event, receivedAt: snapshot.fetchFinishedAt,
                            payload: snapshot.body.bytes, sourcePartition: record.partition, sourceOffset: record.offset)))
            } catch {
                return .deadLetter(
                    reason: "snapshot body not understood (\(snapshot.provider.rawValue) \(snapshot.entity.rawValue)): \(error.description)")
            }
        case Topics.checkouts:
            do {
                return .input(.checkout(try RecordCoding.decode(CheckoutCreatedRecord.self, from: value)))
            } catch {
                return .deadLetter(reason: "undecodable checkout record: \(describe(error))")
            }
        case Topics.commands:
            do {
                switch try CommandRecord.decode(value) {
                case .purchase(let command): return .input(.command(command))
                case .userMerge(let merge): return .input(.userMerge(merge))
                case .grant(let grant): return .input(.grant(grant))
                }
            } catch {
                return .deadLetter(reason: "undecodable command record: \(describe(error))")
            }
        default:
            return .deadLetter(reason: "record from unexpected topic \(record.topic.prefix(200))")
        }
    }

    /// A short decoding error without the record's contents.
    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context), DecodingError.keyNotFound(_, let context),
            DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        default:
            return String(describing: error).prefix(300).description
        }
    }
}
