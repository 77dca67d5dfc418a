/// A long-running part of an executable (HTTP server, Kafka consumer loop)
/// that a ``ServiceGroup`` starts and stops.
///
/// Stopping is cancellation-based, as in swift-service-lifecycle: ``run()``
/// runs until its task is cancelled, then cleans up (drains, closes) and
/// returns or throws `CancellationError`. Returning or throwing at any other
/// time stops the whole group.
public protocol Service: Sendable {
    /// Short name for logs (`http`, `webhook-consumer`).
    var name: String { get }

    /// Whether the group waits for ``ServiceStartup/markReady()`` from
    /// ``run()`` before starting the next service. Defaults to `false`: the
    /// next service starts as soon as this one's task is launched.
    var signalsReadiness: Bool { get }

    /// Does the work until the surrounding task is cancelled.
    func run() async throws
}

extension Service {
    public var signalsReadiness: Bool { false }
}
