import Foundation

/// Where per-user request counts live (PostgreSQL in the service, a fake in tests).
public protocol UserQuotaStore: Sendable {
    /// Counts one request of `user` for `action` in every window of `limits`,
    /// all or nothing: when any window is full nothing is counted and that
    /// limit is returned.
    /// - Returns: nil when the request was counted, else the limit that refused it.
    /// - Throws: the store's error.
    func consume(
        user: String, action: UserQuotaPolicy.Action, limits: [UserQuotaPolicy.Limit], at now: Date
    ) async throws
        -> UserQuotaPolicy.Limit?
}
