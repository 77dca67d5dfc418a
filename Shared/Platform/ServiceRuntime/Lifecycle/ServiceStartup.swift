import Synchronization

/// How a running service tells its ``ServiceGroup`` it has started.
public enum ServiceStartup {
    /// The signal of the service whose ``Service/run()`` is executing.
    @TaskLocal static var current: StartupSignal?

    /// Tells the group that the calling service is started (its port is
    /// bound, its consumer joined), so the next service may start. Call from
    /// within ``Service/run()`` or a child task of it. Later calls, and calls
    /// outside a group, do nothing.
    public static func markReady() {
        current?.fire()
    }
}

/// Fires its action at most once.
final class StartupSignal: Sendable {
    private let fired = Atomic<Bool>(false)
    private let action: @Sendable () -> Void

    init(_ action: @escaping @Sendable () -> Void) {
        self.action = action
    }

    func fire() {
        if fired.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged { action() }
    }
}
