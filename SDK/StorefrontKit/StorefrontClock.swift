import Foundation

/// The time a ``StorefrontClient`` reads and waits on: the wall clock
/// (``SystemStorefrontClock``) unless the app passes another in
/// ``StorefrontClient/Options/clock`` — tests pass a manual one, so a
/// five-minute refresh needs no five-minute wait.
///
/// It dates cached entitlements (their age, their `expires_at`) and paces the
/// periodic refresh of ``StorefrontClient/entitlementSnapshots()``. The
/// polling of ``StorefrontClient/awaitCheckout(_:timeout:)`` runs on real time.
public protocol StorefrontClock: Sendable {
    /// The current time.
    var now: Date { get }
    /// Returns after `duration` has passed on this clock; throws
    /// `CancellationError` when the calling task is cancelled first.
    func sleep(for duration: Duration) async throws
}

/// The wall clock: `Date()` and `Task.sleep(for:)`.
public struct SystemStorefrontClock: StorefrontClock {
    /// Creates the wall clock.
    public init() {}

    /// `Date()`.
    public var now: Date { Date() }

    /// `Task.sleep(for:)`.
    public func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
}

extension StorefrontClock where Self == SystemStorefrontClock {
    /// The wall clock.
    public static var system: SystemStorefrontClock { SystemStorefrontClock() }
}
