import ServiceSettings

// The webhook-sender's own settings (WebhookSenderConfiguration.fromEnvironment).

extension Setting {
    public static let webhookSenderKafkaGroupID = Setting(
        "KAFKA_GROUP_ID", default: "webhook-sender", "consumer group of the webhook-sender's replicas")
    public static let webhookSenderBatchSize = Setting(
        "WEBHOOK_SENDER_BATCH_SIZE", default: "500", "topic records queued per transaction")
    public static let webhookSenderMigrate = Setting(
        "WEBHOOK_SENDER_MIGRATE", default: "true", "apply the sender's migrations at start-up")
    public static let webhookSenderConcurrency = Setting(
        "WEBHOOK_SENDER_CONCURRENCY", default: "8", "delivery attempts in flight per replica")
    public static let webhookSenderEndpointConcurrency = Setting(
        "WEBHOOK_SENDER_ENDPOINT_CONCURRENCY", default: "2",
        "delivery attempts in flight per endpoint and replica: a slow endpoint holds only these")
    public static let webhookSenderDisableAfter = Setting(
        "WEBHOOK_SENDER_DISABLE_AFTER", default: "120h",
        "an endpoint whose every attempt failed for this long is disabled (the circuit breaker)")
    public static let webhookSenderPollInterval = Setting(
        "WEBHOOK_SENDER_POLL_INTERVAL", default: "500ms", "the wait when no delivery is due")
    public static let webhookSenderTimeout = Setting(
        "WEBHOOK_SENDER_TIMEOUT", default: "10s", "one delivery attempt, connect to last byte")
    public static let webhookSenderRetrySchedule = Setting(
        "WEBHOOK_SENDER_RETRY_SCHEDULE", default: "5s,5m,30m,2h,5h,10h,10h",
        "waits between attempts (each moved by up to ±20 %); after the last the delivery is dead")
}

extension SettingGroup {
    public static let webhookSender = SettingGroup(
        "Webhook sender",
        [
            .webhookSenderKafkaGroupID, .webhookSenderBatchSize, .webhookSenderMigrate, .webhookSenderConcurrency,
            .webhookSenderEndpointConcurrency, .webhookSenderDisableAfter, .webhookSenderPollInterval, .webhookSenderTimeout,
            .webhookSenderRetrySchedule,
        ])
}
