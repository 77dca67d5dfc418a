import Foundation
import HTTPServer
import Telemetry

/// Answers 429 to an app user over their quota (``UserQuotaPolicy``), in the
/// API's error shape with the gateway's code (`rate_limited`) and a
/// `Retry-After` of the seconds until the refusing window ends.
struct UserQuotaGate: Sendable {
    let policy: UserQuotaPolicy
    let store: any UserQuotaStore
    let metrics: CheckoutMetrics
    let now: @Sendable () -> Date

    /// Counts one request of `user` for `action`.
    /// - Throws: ``HTTPServer/HTTPError`` 429 over quota; the store's error when it cannot count.
    func admit(_ action: UserQuotaPolicy.Action, user: String) async throws {
        let instant = now()
        guard let refusing = try await store.consume(user: user, action: action, limits: policy.limits(for: action), at: instant) else { return }
        metrics.quotaRefusals(action).increment()
        throw Self.refusal(refusing, at: instant, action: action)
    }

    /// The 429 for a request of `action` refused by `limit` at `instant`.
    static func refusal(_ limit: UserQuotaPolicy.Limit, at instant: Date, action: UserQuotaPolicy.Action) -> HTTPError {
        let window = limit.window.components.seconds >= 3600 ? "hour" : "minute"
        let caller = action == .serverRead ? "API key" : "user"
        return HTTPError(
            .tooManyRequests, "Too many requests from this \(caller) (at most \(limit.requests) a \(window)); try again later",
            code: "rate_limited", headers: ["Retry-After": String(QuotaWindow.retryAfter(at: instant, window: limit.window))])
    }
}
