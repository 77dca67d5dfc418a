import Foundation
import Synchronization

/// Faults of the emulated APIs, set through `POST /_sandbox/faults` next to
/// the delivery faults (and replaced with them).
public struct APIFaults: Sendable, Equatable {
    /// The next N API requests are answered 429 with `Retry-After`, before any other check.
    public var rateLimitNext: Int = 0
    /// Limit ``rateLimitNext`` to one provider (nil: either).
    public var rateLimitProvider: SandboxProvider?
    /// The `Retry-After` seconds of those 429s.
    public var retryAfterSeconds: Int = 1
    /// A request limit per window that replaces the start-up one (`SANDBOX_RATE_LIMIT`) while set.
    public var rateLimit: RateLimitSettings?
    /// Every API request that changes something (not GET or HEAD) is carried
    /// out at once but answered this much later: a provider that acted on a
    /// cancel while the caller gave up waiting.
    public var answerDelayMilliseconds: Int = 0

    public init(rateLimitNext: Int = 0, rateLimitProvider: SandboxProvider? = nil, retryAfterSeconds: Int = 1, rateLimit: RateLimitSettings? = nil) {
        self.rateLimitNext = rateLimitNext
        self.rateLimitProvider = rateLimitProvider
        self.retryAfterSeconds = retryAfterSeconds
        self.rateLimit = rateLimit
    }

    var json: [JSONField] {
        [
            JSONField(key: "api_429_next", value: .int(rateLimitNext)),
            JSONField(key: "api_429_provider", value: JSONValue(rateLimitProvider?.rawValue)),
            JSONField(key: "api_retry_after_seconds", value: .int(retryAfterSeconds)),
            JSONField(key: "api_rate_limit", value: rateLimit.map { ["limit": .int($0.limit), "window_seconds": .int($0.windowSeconds)] } ?? .null),
            JSONField(key: "api_answer_delay_ms", value: .int(answerDelayMilliseconds)),
        ]
    }
}

/// Every API request passes here first: it is counted (per provider and
/// route, for `GET /_sandbox/api-requests`), and refused with 429 when an
/// API fault or the run-time rate limit says so.
final class APIGate: Sendable {
    private struct State {
        var faults = APIFaults()
        var limiter: RateLimiter?
        var requests: [SandboxProvider: [String: Int]] = [:]
        var refused: [SandboxProvider: Int] = [:]
    }

    private let state = Mutex(State())

    func setFaults(_ faults: APIFaults) {
        state.withLock {
            $0.faults = faults
            $0.limiter = faults.rateLimit.map(RateLimiter.init(settings:))
        }
    }

    var faults: APIFaults { state.withLock { $0.faults } }

    /// Counts the request; returns the `Retry-After` seconds when it must be refused.
    func admit(_ provider: SandboxProvider, method: String, path: String, now: Date) -> (retryAfter: Int, limit: Int?)? {
        state.withLock { state in
            state.requests[provider, default: [:]][Self.routeName(method: method, path: path), default: 0] += 1
            var refusal: (Int, Int?)?
            if state.faults.rateLimitNext > 0, state.faults.rateLimitProvider == nil || state.faults.rateLimitProvider == provider {
                state.faults.rateLimitNext -= 1
                refusal = (max(0, state.faults.retryAfterSeconds), nil)
            } else if let limiter = state.limiter, case .limited(let retryAfter) = limiter.check(key: provider.rawValue, now: now) {
                refusal = (retryAfter, limiter.settings.limit)
            }
            if refusal != nil { state.refused[provider, default: 0] += 1 }
            return refusal
        }
    }

    /// `{"lemonsqueezy": {"total": N, "rate_limited": M, "routes": {"GET /subscriptions": n, …}}, …}`.
    var statistics: JSONValue {
        state.withLock { state in
            .object(
                SandboxProvider.allCases.map { provider in
                    let routes = state.requests[provider] ?? [:]
                    return JSONField(
                        key: provider.rawValue,
                        value: [
                            "total": .int(routes.values.reduce(0, +)),
                            "rate_limited": .int(state.refused[provider] ?? 0),
                            "routes": .object(routes.keys.sorted().map { JSONField(key: $0, value: .int(routes[$0] ?? 0)) }),
                        ])
                })
        }
    }

    func resetStatistics() {
        state.withLock {
            $0.requests = [:]
            $0.refused = [:]
        }
    }

    /// `GET /subscriptions/:id`: segments that look like ids become `:id`, so
    /// the counts stay a short list.
    static func routeName(method: String, path: String) -> String {
        let words: Set<String> = ["verify", "manage", "link", "email", "enable", "disable", "initialize", "relationships", "sessions"]
        let segments = path.split(separator: "/").enumerated().map { index, segment -> String in
            let text = String(segment)
            return index == 0 || words.contains(text) ? text : ":id"
        }
        return "\(method) /" + segments.joined(separator: "/")
    }
}
