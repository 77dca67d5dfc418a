import Foundation
import BillingModel

/// Where the shared per-provider request counts live: the seam between
/// ``SharedProviderBudget`` (the waiting and the arithmetic) and the database.
public protocol ProviderLedgerStore: Sendable {
    /// Counts one request in `provider`'s window starting at `window` unless
    /// the window already holds `ceiling` requests or the provider asked
    /// every replica to pause; both decided in one atomic step.
    /// - Throws: the store's error (the caller falls back to its local bucket).
    func take(provider: Provider, window: Date, ceiling: Int, at now: Date) async throws -> LedgerDecision

    /// Records that `provider` answered 429: no replica sends before `until`.
    /// - Throws: the store's error.
    func pause(provider: Provider, until: Date) async throws
}

/// What the ledger answered one ``ProviderLedgerStore/take(provider:window:ceiling:at:)``.
public enum LedgerDecision: Sendable, Equatable {
    /// Counted: the request may go out.
    case granted
    /// The window is at this class's ceiling: ask again in the next window.
    case windowFull
    /// A replica saw a 429: nobody sends before this time.
    case paused(until: Date)
}
