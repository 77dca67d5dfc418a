import Timing
import CryptoPrimitives
import Foundation
import Synchronization
import Telemetry

/// The cached keys of one JWKS URL.
///
/// - The last good key set is kept until a fetch brings a new one: a failed
///   fetch, an error status, a malformed document or one without a usable
///   key never replaces it.
/// - Keys are kept for the response's `Cache-Control: max-age`, bounded and
///   defaulted by ``JWKSPolicy/timeToLive(maxAge:)``; ``JWKSRefresher`` fetches
///   again after ``JWKSPolicy/refreshFraction`` of that time, and backs off
///   after failures.
/// - A token naming an unknown `kid` may trigger a fetch
///   (``refreshForUnknownKey()``), at most one started per
///   ``JWKSPolicy/minimumRefetchInterval``; every caller meanwhile shares the
///   fetch in flight, so a flood of forged `kid`s costs the JWKS host at most
///   one request per interval.
///
/// Nothing is fetched at construction: the first fetch comes from the
/// refresher or the first token, so a service starts while the host is down.
public final class JWKSKeySet: Sendable {
    /// Where the keys come from.
    public let url: URL
    /// The URL without query or user info, for logs and metrics.
    public let label: String
    let fetcher: any JWKSFetching
    let policy: JWKSPolicy
    let clock: JWKSClock
    let logger: Logger
    let metrics: JWKSMetrics?

    struct State: Sendable {
        var keys: JSONWebKeySet?
        var loadedAt: Double?
        var timeToLive: Duration
        var lastAttemptAt: Double?
        var consecutiveFailures = 0
        var inFlight: Task<Bool, Never>?
        var fetchesStarted = 0
    }

    private let state: Mutex<State>

    /// - Parameters:
    ///   - url: the JWKS URL (`https`, or `http` where the configuration allows it).
    ///   - fetcher: how documents are fetched.
    ///   - policy: cache lifetime, refetch and size bounds.
    ///   - clock: monotonic time; injectable for tests.
    ///   - logger: fetch outcomes are logged here (never key material).
    ///   - metrics: counters and gauges, if any.
    public init(
        url: URL, fetcher: any JWKSFetching, policy: JWKSPolicy = JWKSPolicy(), clock: JWKSClock = .continuous, logger: Logger,
        metrics: JWKSMetrics? = nil
    ) {
        self.url = url
        self.label = Self.label(url)
        self.fetcher = fetcher
        self.policy = policy
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
        state = Mutex(State(timeToLive: policy.defaultTTL))
    }

    /// `scheme://host[:port]/path`, without query or user info.
    static func label(_ url: URL) -> String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false) ?? URLComponents()
        components.query = nil
        components.fragment = nil
        components.user = nil
        components.password = nil
        return String((components.string ?? "jwks").prefix(200))
    }

    // MARK: - Reading

    /// The last good keys, or nil before the first successful fetch.
    public var keys: JSONWebKeySet? { state.withLock { $0.keys } }

    /// Whether a fetch has ever succeeded (keys are then always available).
    public var isLoaded: Bool { keys != nil }

    /// How many fetches were started so far (for tests and diagnostics).
    public var fetchesStarted: Int { state.withLock { $0.fetchesStarted } }

    /// The keys with `keyID`, from the last good set.
    public func keys(withID keyID: String) -> [JSONWebKey] {
        keys?.keys(withID: keyID) ?? []
    }

    // MARK: - Fetching

    /// Fetches now, or joins the fetch in flight (the refresher's way in).
    /// - Returns: whether that fetch brought a usable key set.
    @discardableResult
    public func refresh() async -> Bool {
        let task = state.withLock { state in startOrJoin(&state) }
        return await task.value
    }

    /// For a token whose `kid` is not in the set: fetches, unless a fetch
    /// started less than ``JWKSPolicy/minimumRefetchInterval`` ago; joins the
    /// fetch in flight if there is one.
    /// - Returns: false when no fetch ran or was joined (rate-limited) or the
    ///   fetch failed; true when one brought a usable key set.
    public func refreshForUnknownKey() async -> Bool {
        let task: Task<Bool, Never>? = state.withLock { state in
            if let inFlight = state.inFlight { return inFlight }
            if let last = state.lastAttemptAt, clock.now() - last < policy.minimumRefetchInterval.inSeconds { return nil }
            return startOrJoin(&state)
        }
        guard let task else {
            metrics?.refetchesSuppressed.increment()
            return false
        }
        return await task.value
    }

    /// Seconds until the refresher should fetch: now when nothing was ever
    /// loaded; after a failure, the backoff since the last attempt; otherwise
    /// ``JWKSPolicy/refreshFraction`` of the time-to-live after the last load.
    public func secondsUntilRefresh() -> Double {
        state.withLock { state in
            let now = clock.now()
            if state.consecutiveFailures > 0, let last = state.lastAttemptAt {
                return max(0, last + policy.failureBackoff.delay(afterFailures: state.consecutiveFailures).inSeconds - now)
            }
            guard let loadedAt = state.loadedAt else { return 0 }
            return max(0, loadedAt + state.timeToLive.inSeconds * policy.refreshFraction - now)
        }
    }

    /// The fetch in flight, or a new one (recorded as this set's attempt).
    private func startOrJoin(_ state: inout State) -> Task<Bool, Never> {
        if let inFlight = state.inFlight { return inFlight }
        state.lastAttemptAt = clock.now()
        state.fetchesStarted += 1
        let task = Task { await self.fetchOnce() }
        state.inFlight = task
        return task
    }

    /// One fetch, parse and swap. Runs unstructured, so a caller that gives
    /// up (its request cancelled) does not cancel it for the others.
    private func fetchOnce() async -> Bool {
        let outcome: Result<(JSONWebKeySet, Duration), JWKSKeySetFailure>
        do throws(JWKSKeySetFailure) {
            outcome = .success(try await fetchAndParse())
        } catch {
            outcome = .failure(error)
        }
        let (previous, failures) = state.withLock { state -> (JSONWebKeySet?, Int) in
            state.inFlight = nil
            switch outcome {
            case .success(let (keys, timeToLive)):
                let previous = state.keys
                state.keys = keys
                state.loadedAt = clock.now()
                state.timeToLive = timeToLive
                state.consecutiveFailures = 0
                return (previous, 0)
            case .failure:
                state.consecutiveFailures += 1
                return (state.keys, state.consecutiveFailures)
            }
        }
        switch outcome {
        case .success(let (keys, timeToLive)):
            metrics?.fetches(ok: true).increment()
            metrics?.keys(label).set(Double(keys.keys.count))
            let identifiers = keys.keys.map { $0.keyID ?? "-" }
            if previous.map({ $0.keys.map { $0.keyID ?? "-" } }) != identifiers || !keys.ignored.isEmpty {
                logger.info(
                    "JWKS keys loaded",
                    metadata: [
                        "jwks.url": label, "jwks.keys": String(keys.keys.count),
                        "jwks.kids": identifiers.prefix(16).map { String($0.prefix(64)) }.joined(separator: ","),
                        "jwks.ignored": keys.ignored.prefix(8).joined(separator: "; "),
                        "jwks.ttl_seconds": String(Int(timeToLive.inSeconds)),
                    ])
            }
            return true
        case .failure(let failure):
            metrics?.fetches(ok: false).increment()
            logger.warning(
                previous == nil ? "JWKS fetch failed; no keys yet" : "JWKS fetch failed; keeping the last good keys",
                metadata: [
                    "jwks.url": label, "error": failure.description, "jwks.consecutive_failures": String(failures),
                    "jwks.keys_kept": String(previous?.keys.count ?? 0),
                ])
            return false
        }
    }

    private func fetchAndParse() async throws(JWKSKeySetFailure) -> (JSONWebKeySet, Duration) {
        let document: JWKSDocument
        do {
            document = try await fetcher.fetch(url)
        } catch {
            throw .fetch(error)
        }
        guard document.body.count <= policy.maximumResponseBytes else { throw .fetch(.tooLarge(limit: policy.maximumResponseBytes)) }
        let keys: JSONWebKeySet
        do {
            keys = try JSONWebKeySet.parse(document.body, maximumKeys: policy.maximumKeys)
        } catch {
            throw .document(error.description)
        }
        guard !keys.keys.isEmpty else {
            throw .document("no usable signature key (\(keys.ignored.prefix(4).joined(separator: "; ")))")
        }
        return (keys, policy.timeToLive(maxAge: document.maxAge))
    }
}

/// Why a fetch did not replace the key set.
enum JWKSKeySetFailure: Error, CustomStringConvertible {
    case fetch(JWKSFetchError)
    case document(String)

    var description: String {
        switch self {
        case .fetch(let error): error.description
        case .document(let reason): "unusable JWKS: \(reason.prefix(300))"
        }
    }
}

/// Monotonic seconds for the key cache, injectable so tests can move time
/// forward without sleeping.
public struct JWKSClock: Sendable {
    /// Seconds since an arbitrary fixed origin; never goes backwards.
    public let now: @Sendable () -> Double

    public init(now: @escaping @Sendable () -> Double) {
        self.now = now
    }

    /// The process's monotonic clock: a wall-clock step cannot make keys look fresher or staler.
    public static let continuous: JWKSClock = {
        let origin = ContinuousClock.now
        return JWKSClock { (ContinuousClock.now - origin).inSeconds }
    }()
}
