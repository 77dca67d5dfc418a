import Telemetry

/// What happened to one App Store notification (the `result` label of `apple_notifications_received_total`).
enum AppleNotificationResult: String, Sendable, CaseIterable {
    case published
    case invalidSignature = "invalid_signature"
    case foreign
    case notUnderstood = "not_understood"
    case notConfigured = "not_configured"
    case tooLarge = "too_large"
    case publishFailed = "publish_failed"
}

/// `apple_notifications_received_total{result}`, every result created up front.
struct AppleNotificationMetrics: Sendable {
    private let received: [AppleNotificationResult: Counter]

    init(registry: MetricsRegistry) {
        var received: [AppleNotificationResult: Counter] = [:]
        for result in AppleNotificationResult.allCases {
            received[result] = registry.counter(
                "apple_notifications_received_total", help: "App Store Server Notifications by result.", labels: ["result": result.rawValue])
        }
        self.received = received
    }

    func count(_ result: AppleNotificationResult) { received[result]?.increment() }
}
