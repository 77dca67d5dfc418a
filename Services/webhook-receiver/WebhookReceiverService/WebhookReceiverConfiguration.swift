import ServiceSettings
import ServiceRuntime
import Webhooks

/// The webhook receiver's own settings (HTTP settings come from
/// `HTTPServerConfiguration.fromEnvironment`, broker settings from
/// `MessagingSettings.fromEnvironment`).
public struct WebhookReceiverConfiguration: Sendable {
    /// Largest accepted webhook body (`WEBHOOK_MAX_BODY_BYTES`, default 1 MiB).
    /// Enforced by the HTTP server itself (larger bodies get 413 before they
    /// are read into memory). Never above ``maximumBodyLimit``: the verifiers
    /// and the projector's parser refuse larger bodies anyway.
    public var maxBodyBytes: Int
    /// How long a webhook may wait for the broker's acknowledgement before it
    /// is answered 503 (`WEBHOOK_PUBLISH_TIMEOUT`, default 5 s). The producer's
    /// delivery timeout (`message.timeout.ms`) is set to the same value.
    public var publishTimeout: Duration
    /// Take the client address from the last hop of `X-Forwarded-For` instead
    /// of the TCP peer (`WEBHOOK_TRUST_FORWARDED_FOR`, default false). Only for
    /// deployments behind the gateway, which appends the address it saw; a
    /// directly exposed receiver must not trust the header (clients forge it).
    /// `WEBHOOK_PUBLISH_LINGER` (default 0, at most 50 ms): the producer's
    /// `linger.ms`, how long a webhook waits for others to share its produce
    /// request. None by default: under load librdkafka already sends what
    /// queued while the previous request was in flight together, and 1 ms
    /// measured no cheaper per webhook (docs/testing-and-benchmarks.md),
    /// while each answer at low load would wait that long.
    public var publishLinger: Duration
    public var trustForwardedFor: Bool
    /// `Retry-After` seconds sent with 503 answers.
    public var retryAfterSeconds: Int
    /// How long a broker readiness result is reused, so frequent probes do
    /// not each cost a metadata request.
    public var readinessCacheDuration: Duration

    /// Upper bound of ``maxBodyBytes``: the providers' verifiers refuse larger bodies.
    public static var maximumBodyLimit: Int { ProviderWebhooks.maximumBodySize }

    public init(
        maxBodyBytes: Int = 1 << 20, publishTimeout: Duration = .seconds(5), publishLinger: Duration = .zero,
        trustForwardedFor: Bool = false,
        retryAfterSeconds: Int = 5, readinessCacheDuration: Duration = .milliseconds(1500)
    ) {
        self.maxBodyBytes = maxBodyBytes
        self.publishTimeout = publishTimeout
        self.publishLinger = publishLinger
        self.trustForwardedFor = trustForwardedFor
        self.retryAfterSeconds = retryAfterSeconds
        self.readinessCacheDuration = readinessCacheDuration
    }

    /// Shortest accepted publish timeout: below this even a healthy broker
    /// would be answered 503 now and then.
    public static let minimumPublishTimeout: Duration = .milliseconds(200)
    /// Longest accepted publish timeout: providers give up on slow receivers
    /// (Paystack and Lemon Squeezy wait a few tens of seconds at most).
    public static let maximumPublishTimeout: Duration = .seconds(25)
    /// The longest ``publishLinger``: beyond it the wait shows in every answer.
    public static let maximumPublishLinger: Duration = .milliseconds(50)

    /// Reads `WEBHOOK_MAX_BODY_BYTES`, `WEBHOOK_PUBLISH_TIMEOUT` (seconds, or
    /// `500ms`…) and `WEBHOOK_TRUST_FORWARDED_FOR`; problems join `reader`.
    public static func fromEnvironment(_ reader: inout ConfigReader) -> WebhookReceiverConfiguration {
        var configuration = WebhookReceiverConfiguration()
        configuration.maxBodyBytes = reader.int(
            .webhookMaxBodyBytes, default: configuration.maxBodyBytes, in: 1024...maximumBodyLimit)
        let timeout = reader.duration(.webhookPublishTimeout, default: configuration.publishTimeout)
        if timeout < minimumPublishTimeout || timeout > maximumPublishTimeout {
            reader.report(.webhookPublishTimeout, "must be between \(minimumPublishTimeout) and \(maximumPublishTimeout)")
        } else {
            configuration.publishTimeout = timeout
        }
        let linger = reader.duration(.webhookPublishLinger, default: configuration.publishLinger)
        if linger < .zero || linger > maximumPublishLinger {
            reader.report(.webhookPublishLinger, "must be between 0ms and \(maximumPublishLinger)")
        } else {
            configuration.publishLinger = linger
        }
        configuration.trustForwardedFor = reader.bool(.webhookTrustForwardedFor, default: false)
        return configuration
    }
}
