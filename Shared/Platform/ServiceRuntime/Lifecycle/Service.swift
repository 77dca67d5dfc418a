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

    /// Suspends until the group stops this service (cancels its task): for a
    /// service whose work is at its stop (a producer's flush, a consumer's
    /// leave) or that must not return early, since returning stops the group.
    public func idleUntilStopped() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3600))
        }
    }
}
