import Foundation
import Timing

/// How a ``JWKSKeySet`` caches, refreshes and bounds its fetches. Every
/// property has a default; tests shorten the times.
public struct JWKSPolicy: Sendable, Equatable {
    /// How long keys are kept when the response has no `Cache-Control: max-age`. Default 1 hour.
    public var defaultTTL: Duration
    /// The shortest time keys are kept, whatever `max-age` says (also for
    /// `no-cache`/`no-store`). Default 5 minutes.
    public var minimumTTL: Duration
    /// The longest time keys are kept before they are fetched again, whatever `max-age` says. Default 24 hours.
    public var maximumTTL: Duration
    /// The share of the time-to-live after which the background refresh
    /// fetches again, so new keys arrive before the old copy expires. Default 0.8.
    public var refreshFraction: Double
    /// At most one fetch per key set starts within this interval for tokens
    /// naming an unknown `kid` (concurrent ones share the fetch in flight), so
    /// a flood of forged `kid`s cannot make the service hammer the JWKS host. Default 30 s.
    public var minimumRefetchInterval: Duration
    /// The background retry schedule after failed fetches (the last good keys
    /// stay in use meanwhile). Default 5 s doubling to 5 minutes.
    public var failureBackoff: Backoff
    /// Time allowed for one fetch (connect, send, receive). Default 5 s.
    public var fetchTimeout: Duration
    /// The largest JWKS response accepted. Default 128 KiB.
    public var maximumResponseBytes: Int
    /// The most entries a JWKS document may have. Default 64.
    public var maximumKeys: Int

    /// Creates a policy; every parameter is a property above, with its default.
    public init(
        defaultTTL: Duration = .seconds(3600),
        minimumTTL: Duration = .seconds(300),
        maximumTTL: Duration = .seconds(86_400),
        refreshFraction: Double = 0.8,
        minimumRefetchInterval: Duration = .seconds(30),
        failureBackoff: Backoff = Backoff(initial: .seconds(5), maximum: .seconds(300)),
        fetchTimeout: Duration = .seconds(5),
        maximumResponseBytes: Int = 128 * 1024,
        maximumKeys: Int = 64
    ) {
        self.defaultTTL = defaultTTL
        self.minimumTTL = minimumTTL
        self.maximumTTL = max(maximumTTL, minimumTTL)
        self.refreshFraction = min(max(refreshFraction, 0.1), 1)
        self.minimumRefetchInterval = minimumRefetchInterval
        self.failureBackoff = failureBackoff
        self.fetchTimeout = fetchTimeout
        self.maximumResponseBytes = maximumResponseBytes
        self.maximumKeys = maximumKeys
    }

    /// How long to keep keys whose response said `max-age` (nil: none):
    /// ``defaultTTL`` when absent, and always within ``minimumTTL`` … ``maximumTTL``.
    public func timeToLive(maxAge: Duration?) -> Duration {
        min(max(maxAge ?? defaultTTL, minimumTTL), maximumTTL)
    }
}

/// Reads a response's freshness lifetime from `Cache-Control` (RFC 9111 §5.2).
public enum CacheLifetime {
    /// `max-age` minus the `Age` the response already has, or zero for
    /// `no-cache`/`no-store`; nil when the header names no lifetime.
    /// - Parameters:
    ///   - cacheControl: the `Cache-Control` value, e.g. `public, max-age=21600, must-revalidate`.
    ///   - age: the `Age` value (seconds a cache already held the response), if any.
    public static func maxAge(cacheControl: String?, age: String? = nil) -> Duration? {
        guard let cacheControl, cacheControl.utf8.count <= 1024 else { return nil }
        var seconds: Int?
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            switch parts.first {
            case "no-store", "no-cache":
                return .zero
            case "max-age":
                guard parts.count == 2 else { continue }
                let value = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                // Digits only; anything longer than nine digits is far past any bound anyway.
                guard !value.isEmpty, value.count <= 9, value.allSatisfy(\.isASCII), let parsed = Int(value), parsed >= 0 else { continue }
                seconds = parsed
            default:
                continue
            }
        }
        guard var seconds else { return nil }
        if let age, age.count <= 9, let held = Int(age.trimmingCharacters(in: .whitespaces)), held > 0 {
            seconds = max(0, seconds - held)
        }
        return .seconds(seconds)
    }
}
