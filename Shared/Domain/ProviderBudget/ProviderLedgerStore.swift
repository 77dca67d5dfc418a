import Foundation
import BillingModel

/// Where the shared per-provider request counts live: the seam between
/// ``SharedProviderBudget`` (the waiting and the arithmetic) and the database.
public protocol ProviderLedgerStore: Sendable {
    /// Counts up to `count` requests in `provider`'s window starting at
    /// `window`, as many as fit under `ceiling`, unless the window is already
    /// full or the provider asked every replica to pause; decided in one
    /// atomic step.
    /// - Throws: the store's error (the caller falls back to its local bucket).
    func take(provider: Provider, window: Date, ceiling: Int, upTo count: Int, at now: Date) async throws -> LedgerDecision

    /// Records that `provider` answered 429: no replica sends before `until`.
    /// - Throws: the store's error.
    func pause(provider: Provider, until: Date) async throws
}

/// What the ledger answered one ``ProviderLedgerStore/take(provider:window:ceiling:upTo:at:)``.
public enum LedgerDecision: Sendable, Equatable {
    /// Counted: this many requests (at least 1, at most the count asked for) may go out in the window.
    case granted(Int)
    /// The window is at this class's ceiling: ask again in the next window.
    case windowFull
    /// A replica saw a 429: nobody sends before this time.
    case paused(until: Date)
}
