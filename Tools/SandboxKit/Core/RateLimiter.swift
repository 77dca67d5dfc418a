import Foundation
import Synchronization

/// A fixed-window request counter per key (one per provider).
final class RateLimiter: Sendable {
    enum Decision: Equatable {
        case allowed(remaining: Int)
        case limited(retryAfterSeconds: Int)
    }

    private struct Window {
        var start: Date
        var count: Int
    }

    let settings: RateLimitSettings
    private let windows = Mutex<[String: Window]>([:])

    init(settings: RateLimitSettings) { self.settings = settings }

    func check(key: String, now: Date) -> Decision {
        windows.withLock { windows in
            let length = TimeInterval(settings.windowSeconds)
            var window = windows[key] ?? Window(start: now, count: 0)
            if now.timeIntervalSince(window.start) >= length { window = Window(start: now, count: 0) }
            guard window.count < settings.limit else {
                let left = length - now.timeIntervalSince(window.start)
                return .limited(retryAfterSeconds: max(1, Int(left.rounded(.up))))
            }
            window.count += 1
            windows[key] = window
            return .allowed(remaining: settings.limit - window.count)
        }
    }
}
