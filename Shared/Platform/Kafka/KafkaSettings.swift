import Timing
import ServiceSettings

// The broker settings every publishing or consuming binary reads (MessagingSettings.fromEnvironment).

extension Setting {
    public static let kafkaBrokers = Setting(
        "KAFKA_BROKERS", required: true, "comma-separated host:port list of the brokers to bootstrap from")
    public static let kafkaClientID = Setting(
        "KAFKA_CLIENT_ID", "client.id the brokers see and log; unset: the service's name")
    public static let kafkaTopicPartitions = Setting(
        "KAFKA_TOPIC_PARTITIONS", default: "6", "partitions of each topic the service creates (at least one per projector replica)")
    public static let kafkaReplicationFactor = Setting(
        "KAFKA_REPLICATION_FACTOR", default: "1", "replicas of each topic the service creates (3 on a production cluster)")
    public static let kafkaTopicRetention = Setting(
        "KAFKA_TOPIC_RETENTION", default: "30 days",
        "how long records stay on the topics the service creates (webhooks and dead letters stay replayable that long)")
    public static let kafkaMaxMessageBytes = Setting(
        "KAFKA_MAX_MESSAGE_BYTES", default: "4 MiB",
        "largest record produced and topic max.message.bytes (a 1 MiB webhook's envelope, dead-lettered, fits)")
    public static let kafkaConsumerPrefetchBytes = Setting(
        "KAFKA_CONSUMER_PREFETCH_BYTES", default: "8 MiB",
        "most record bytes a consumer fetches ahead (queued.max.messages.kbytes; librdkafka's own default is 64 MiB)")
    public static let kafkaPublishReadinessWindow = Setting(
        "KAFKA_PUBLISH_READINESS_WINDOW", default: "10s",
        "/readyz fails while the producer has records that waited this long undelivered, or a delivery failed this recently with none since")
    public static let kafkaTopicCheckInterval = Setting(
        "KAFKA_TOPIC_CHECK_INTERVAL", default: "30s", "how often producers re-create topics the broker lost; 0 turns the check off")
    public static let kafkaSecurityProtocol = Setting(
        "KAFKA_SECURITY_PROTOCOL", default: "plaintext", "librdkafka security.protocol: plaintext, ssl, sasl_plaintext or sasl_ssl")
    public static let kafkaSASLMechanism = Setting(
        "KAFKA_SASL_MECHANISM", "sasl.mechanism: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (required with a SASL protocol)")
    public static let kafkaSASLUsername = Setting(
        "KAFKA_SASL_USERNAME", "SASL user name (required with a SASL protocol)")
    public static let kafkaSASLPassword = Setting(
        "KAFKA_SASL_PASSWORD", secret: true, "SASL password (required with a SASL protocol); never logged")
    public static let kafkaSSLCALocation = Setting(
        "KAFKA_SSL_CA_LOCATION", default: "the system's CAs", "PEM file of the CAs that sign the brokers' certificates")
    public static let kafkaSSLCertificateLocation = Setting(
        "KAFKA_SSL_CERTIFICATE_LOCATION", "client certificate (PEM), with KAFKA_SSL_KEY_LOCATION")
    public static let kafkaSSLKeyLocation = Setting(
        "KAFKA_SSL_KEY_LOCATION", "client private key (PEM), with KAFKA_SSL_CERTIFICATE_LOCATION")
    public static let kafkaSSLKeyPassword = Setting(
        "KAFKA_SSL_KEY_PASSWORD", secret: true, "password of the client private key")
    public static let kafkaSSLEndpointIdentificationAlgorithm = Setting(
        "KAFKA_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM", default: "https",
        "https checks the broker's host name against its certificate; none (logged as a warning) does not")
}

extension SettingGroup {
    public static let kafka = SettingGroup(
        "Broker",
        [
            .kafkaBrokers, .kafkaClientID, .kafkaTopicPartitions, .kafkaReplicationFactor, .kafkaTopicRetention, .kafkaMaxMessageBytes,
            .kafkaConsumerPrefetchBytes, .kafkaPublishReadinessWindow, .kafkaTopicCheckInterval,
        ])
    public static let kafkaSecurity = SettingGroup(
        "Broker TLS and SASL",
        [
            .kafkaSecurityProtocol, .kafkaSASLMechanism, .kafkaSASLUsername, .kafkaSASLPassword, .kafkaSSLCALocation, .kafkaSSLCertificateLocation,
            .kafkaSSLKeyLocation, .kafkaSSLKeyPassword, .kafkaSSLEndpointIdentificationAlgorithm,
        ])
}
