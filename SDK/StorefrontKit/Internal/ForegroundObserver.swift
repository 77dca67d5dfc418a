import Foundation

/// Runs an action whenever the app returns to the foreground, by observing
/// the platform's notification on a `NotificationCenter`. The client passes
/// `.default` and ``platformNotifications``; tests pass their own center and
/// name, so the path is tested where UIKit does not exist.
final class ForegroundObserver: @unchecked Sendable {
    private let lock = NSLock()
    private var registrations: [(center: NotificationCenter, token: any NSObjectProtocol)] = []

    /// The notifications that mean "back in the foreground" here, by name (so
    /// the kit need not import UIKit or AppKit, whose symbols are main-actor
    /// isolated): UIKit's `UIApplication.willEnterForegroundNotification`,
    /// AppKit's `NSApplication.willBecomeActiveNotification`; none elsewhere.
    static var platformNotifications: [Notification.Name] {
        #if canImport(UIKit)
            [Notification.Name("UIApplicationWillEnterForegroundNotification")]
        #elseif canImport(AppKit)
            [Notification.Name("NSApplicationWillBecomeActiveNotification")]
        #else
            []
        #endif
    }

    /// Calls `action` (in a new task) each time one of `names` is posted on `center`.
    func observe(_ names: [Notification.Name], on center: NotificationCenter, action: @escaping @Sendable () async -> Void) {
        let tokens = names.map { name in
            center.addObserver(forName: name, object: nil, queue: nil) { _ in
                Task { await action() }
            }
        }
        lock.lock()
        registrations += tokens.map { (center, $0) }
        lock.unlock()
    }

    deinit {
        for registration in registrations { registration.center.removeObserver(registration.token) }
    }
}
