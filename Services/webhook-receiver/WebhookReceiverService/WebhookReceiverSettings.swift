import Timing
import ServiceSettings

// The webhook receiver's own settings (WebhookReceiverConfiguration.fromEnvironment).

extension Setting {
    public static let webhookMaxBodyBytes = Setting(
        "WEBHOOK_MAX_BODY_BYTES", default: "1048576", "largest webhook body accepted (413 above)")
    public static let webhookPublishTimeout = Setting(
        "WEBHOOK_PUBLISH_TIMEOUT", default: "5s", "longest to wait for the broker's acknowledgement before answering 503")
    public static let webhookPublishLinger = Setting(
        "WEBHOOK_PUBLISH_LINGER", default: "0ms",
        "how long the producer holds a webhook to send it with others (linger.ms, 0-50ms); every webhook waits that long for its 200")
    public static let webhookTrustForwardedFor = Setting(
        "WEBHOOK_TRUST_FORWARDED_FOR", default: "false",
        "true: take the client address from X-Forwarded-For (behind the gateway), for a provider's webhook IP allow-list")
}

extension SettingGroup {
    public static let webhookReceiver = SettingGroup(
        "Webhook receiver", [.webhookMaxBodyBytes, .webhookPublishTimeout, .webhookPublishLinger, .webhookTrustForwardedFor])
}
