import Foundation
import BillingModel
import Providers
import Synchronization
import Telemetry

/// A ``Providers/ProviderRequestBudget`` every replica of every service shares
/// through a ``ProviderLedgerStore``, so the provider's per-key limit holds
/// across replicas and the checkout keeps its reserve (``ProviderRequestClass``).
///
/// Each request is counted in the current ten-second window (``LedgerWindow``)
/// unless the window is at this class's ceiling; then the caller sleeps until
/// the next window. A budget made with a `batch` above 1 takes that many
/// requests from the ledger at once and hands them out itself until the
/// window ends, so a burst of background fetches costs one ledger
/// transaction per batch, not one per fetch; what is left of a batch when
/// its window ends is dropped (counted, never sent: the ledger errs on the
/// provider's side). A 429 is written to the ledger as a pause every replica
/// honours, and held here at once. When the store cannot be reached the
/// budget falls back to `fallback`, an in-process bucket holding only this
/// replica's configured share, and returns to the ledger on the next success.
public final class SharedProviderBudget: ProviderRequestBudget, CustomStringConvertible {
    public let provider: Provider
    public let requestClass: ProviderRequestClass
    /// This class's ceiling per ledger window.
    public let ceiling: Int
    /// Requests taken from the ledger at once (1: one transaction per request).
    public let batch: Int
    let store: any ProviderLedgerStore
    let fallback: any ProviderRequestBudget
    let logger: Logger
    let now: @Sendable () -> Date
    let sleep: @Sendable (Duration) async throws -> Void
    /// Pause seen by this replica (its own 429s, and the ledger's), whether
    /// the last ledger call failed (to log the switch once each way), and the
    /// requests already counted in the ledger for a window and not yet sent.
    private let state = Mutex<(pausedUntil: Date?, usingFallback: Bool, reserve: (window: Date, left: Int)?)>((nil, false, nil))

    /// - Parameters:
    ///   - provider: whose limit this is.
    ///   - requestClass: how far into the window this budget's callers may reach.
    ///   - shares: the provider's limit and its split.
    ///   - store: the shared ledger.
    ///   - fallback: used while the store fails (an in-process ``Providers/RequestBudget``).
    ///   - batch: requests to take from the ledger at once; at most a quarter
    ///     of the class's window ceiling, so one replica's unsent batch
    ///     never starves the others (default 1).
    ///   - now, sleep: the clock (tests inject both).
    public init(
        provider: Provider, requestClass: ProviderRequestClass, shares: ProviderBudgetShares, store: any ProviderLedgerStore,
        fallback: any ProviderRequestBudget, logger: Logger, batch: Int = 1, now: @escaping @Sendable () -> Date = { Date() },
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.provider = provider
        self.requestClass = requestClass
        self.ceiling = shares.ceiling(for: requestClass)
        self.batch = min(max(1, batch), max(1, ceiling / 4))
        self.store = store
        self.fallback = fallback
        self.logger = logger
        self.now = now
        self.sleep = sleep
    }

    public var description: String {
        "SharedProviderBudget(\(provider.rawValue), \(requestClass.rawValue), \(ceiling) per window, taken \(batch) at a time)"
    }

    public func acquire() async throws {
        while true {
            let instant = now()
            if let until = state.withLock({ $0.pausedUntil }), until > instant {
                try await sleep(Self.duration(from: instant, to: until))
                continue
            }
            let window = LedgerWindow.start(of: instant)
            if takeFromReserve(in: window) { return }
            let decision: LedgerDecision
            do {
                decision = try await store.take(provider: provider, window: window, ceiling: ceiling, upTo: batch, at: instant)
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                noteStore(failed: true, error: error)
                try await fallback.acquire()
                return
            }
            noteStore(failed: false, error: nil)
            switch decision {
            case .granted(let count):
                keepInReserve(count - 1, in: window)
                return
            case .windowFull:
                try await sleep(LedgerWindow.untilNext(after: instant))
            case .paused(let until):
                state.withLock { $0.pausedUntil = max($0.pausedUntil ?? until, until) }
                try await sleep(Self.duration(from: instant, to: until))
            }
        }
    }

    public func backOff(for delay: Duration) {
        let until = now().addingTimeInterval(Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
        state.withLock {
            $0.pausedUntil = max($0.pausedUntil ?? until, until)
            // Counted, but the provider said stop: nothing more goes out of this window.
            $0.reserve = nil
        }
        fallback.backOff(for: delay)
        // The protocol's backOff is synchronous (the client calls it on the
        // 429's path); the other replicas learn of the pause a moment later.
        let store = store, provider = provider, logger = logger
        Task {
            do {
                try await store.pause(provider: provider, until: until)
            } catch {
                logger.warning(
                    "provider pause not recorded in the shared ledger",
                    metadata: ["provider": provider.rawValue, "error": String(describing: error)])
            }
        }
    }

    /// Takes one request already counted for `window`, if this replica holds one.
    private func takeFromReserve(in window: Date) -> Bool {
        state.withLock { state in
            guard let reserve = state.reserve, reserve.window == window, reserve.left > 0 else { return false }
            state.reserve = reserve.left == 1 ? nil : (window, reserve.left - 1)
            return true
        }
    }

    /// Keeps `count` more counted requests of `window` (added to what another
    /// caller took for the same window meanwhile; an older window's are dropped).
    private func keepInReserve(_ count: Int, in window: Date) {
        guard count > 0 else { return }
        state.withLock { state in
            let kept = state.reserve.flatMap { $0.window == window ? $0.left : nil } ?? 0
            state.reserve = (window, kept + count)
        }
    }

    private func noteStore(failed: Bool, error: (any Error)?) {
        let changed = state.withLock { state in
            defer { state.usingFallback = failed }
            return state.usingFallback != failed
        }
        guard changed else { return }
        if failed {
            logger.warning(
                "provider ledger unreachable; pacing with this replica's own share",
                metadata: ["provider": provider.rawValue, "class": requestClass.rawValue, "error": error.map { String(describing: $0) } ?? ""])
        } else {
            logger.info("provider ledger reachable again", metadata: ["provider": provider.rawValue, "class": requestClass.rawValue])
        }
    }

    static func duration(from start: Date, to end: Date) -> Duration {
        .milliseconds(max(1, Int64((end.timeIntervalSince(start) * 1000).rounded(.up))))
    }
}
