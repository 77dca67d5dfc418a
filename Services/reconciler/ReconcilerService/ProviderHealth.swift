import Foundation
import BillingModel
import Synchronization

/// Whether each provider answers, from the outcome of the latest calls: a
/// provider whose latest call failed for a reason that waiting may cure
/// (outage, rate limit, rejected key) is down until a call succeeds.
/// `/readyz` reports it and `reconciler_provider_up` shows it.
public final class ProviderHealth: Sendable {
    public struct Outage: Sendable, Equatable, CustomStringConvertible {
        public var since: Date
        public var failures: Int
        public var lastError: String
        public var description: String { "down since \(Timestamp.format(since)) (\(failures) failed calls; last: \(lastError.prefix(160)))" }
    }

    private let outages = Mutex<[Provider: Outage]>([:])

    public init() {}

    public func succeeded(_ provider: Provider) {
        _ = outages.withLock { $0.removeValue(forKey: provider) }
    }

    public func failed(_ provider: Provider, error: String, at now: Date = Date()) {
        outages.withLock { outages in
            var outage = outages[provider] ?? Outage(since: now, failures: 0, lastError: error)
            outage.failures += 1
            outage.lastError = error
            outages[provider] = outage
        }
    }

    /// The provider's outage, or nil when its latest call succeeded.
    public func outage(_ provider: Provider) -> Outage? { outages.withLock { $0[provider] } }

    struct Down: Error, CustomStringConvertible {
        let description: String
    }

    /// For a readiness check: throws while `provider` is down.
    func check(_ provider: Provider) throws {
        if let outage = outage(provider) { throw Down(description: "\(provider.rawValue) \(outage)") }
    }
}
