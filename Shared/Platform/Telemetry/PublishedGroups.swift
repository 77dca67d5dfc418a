import Synchronization

/// The label sets a gauge family was last given, so that a group missing
/// from the next count can be set to 0 instead of keeping a stale value
/// (the registry never forgets a series). Used by every gauge family that is
/// recounted on a timer (the projector's subscription counts, the
/// reconciler's revenue figures).
public final class PublishedGroups: Sendable {
    private let groups = Mutex<Set<[String: String]>>([])

    public init() {}

    /// Stores `current` and returns the groups published before but not now.
    public func replace(with current: Set<[String: String]>) -> Set<[String: String]> {
        groups.withLock { groups in
            let vanished = groups.subtracting(current)
            // Once set to 0 the gauge stays 0 in the registry, so the
            // vanished groups need not be remembered.
            groups = current
            return vanished
        }
    }
}
