import Foundation
import Kafka

/// How the live stream reads ``Topics/entitlements`` (written by the
/// projector's outbox relay).
public enum EntitlementChangeTopic {
    /// A consumer for one checkout replica: a group of its own (so every
    /// replica reads every partition, and any replica can answer any user),
    /// starting at the latest offset (the stream shows what happens from now
    /// on; the app reads the current state with `GET /api/entitlements`).
    /// Offsets are never committed, so a restart starts at the end again.
    /// - Parameters:
    ///   - client: the broker settings (`MessagingSettings.client`).
    ///   - replica: what names this replica's group (the host name); a random suffix keeps
    ///     two processes with the same host name (local runs) from sharing partitions.
    public static func consumerConfiguration(client: KafkaClientConfiguration, replica: String) -> KafkaConsumerConfiguration {
        let suffix = UUID().uuidString.prefix(8).lowercased()
        return KafkaConsumerConfiguration(
            client: client, groupID: "checkout-stream-\(replica)-\(suffix)", autoOffsetReset: .latest,
            // No gaps to wait for: a change a moment late is still a change, and a late
            // one only means the app's next poll brings it.
            offsetGapRecheck: nil)
    }
}
