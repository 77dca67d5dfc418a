import Timing
import ServiceSettings
import HTTPServer
import Kafka
import ProviderConfiguration
import ServiceRuntime

/// What the `webhook-receiver` executable reads: its `--help-settings`
/// prints it, and its reader refuses anything else.
public enum WebhookReceiverBinary {
    public static let settings = BinarySettings(
        "webhook-receiver", [.runtime, .httpServer, .webhookReceiver, .kafka, .kafkaSecurity] + ProviderUses.webhooks.settingGroups)
}
