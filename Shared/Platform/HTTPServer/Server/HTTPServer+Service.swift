import ServiceRuntime

/// An ``HTTPServer`` is one service of a ``ServiceGroup``: it binds when the
/// group starts it (so a port conflict fails the whole process at start-up),
/// reports ready once bound, and drains gracefully when the group stops it.
extension HTTPServer: Service {
    public var name: String { "http" }
    public var signalsReadiness: Bool { true }

    /// Starts (unless already started), then serves until the calling task is
    /// cancelled, then shuts down gracefully (``shutdown()``).
    public func run() async throws {
        if isIdle { try start() }
        ServiceStartup.markReady()
        await withTaskCancellationHandler {
            await waitUntilStopped()
        } onCancel: {
            Task { await self.shutdown() }
        }
    }
}
