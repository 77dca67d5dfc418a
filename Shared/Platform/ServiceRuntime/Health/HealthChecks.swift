import ServiceSettings
import Synchronization

/// The readiness checks of one service (database reachable, broker
/// reachable…) and its liveness answer. Not tied to HTTP: the HTTP layer
/// serves ``liveness()`` on `/healthz` and ``readiness()`` on `/readyz`.
///
/// Checks run concurrently, each bounded by its timeout. A check that
/// throws, or does not finish in time, fails. A timed-out check is cancelled
/// and abandoned; while it is still running, later probes report it failing
/// at once instead of starting another copy.
public final class HealthChecks: Sendable {
    /// A registered check and the count of its abandoned runs.
    final class Check: Sendable {
        let name: String
        let timeout: Duration
        let run: @Sendable () async throws -> Void
        let abandonedRuns = AbandonedRuns()

        init(name: String, timeout: Duration, run: @escaping @Sendable () async throws -> Void) {
            self.name = name
            self.timeout = timeout
            self.run = run
        }
    }

    /// Longest error text put in a report.
    static let maximumErrorLength = 200

    /// Timeout for checks registered without one.
    public let defaultTimeout: Duration
    private let checks = Mutex<[Check]>([])

    /// - Parameter defaultTimeout: timeout for checks registered without one.
    public init(defaultTimeout: Duration = .seconds(2)) {
        self.defaultTimeout = defaultTimeout
    }

    /// Registers a readiness check; a check with the same name is replaced.
    /// - Parameters:
    ///   - name: short, stable name shown in reports (`postgres`, `kafka`).
    ///   - timeout: how long the check may take; ``defaultTimeout`` if `nil`.
    ///   - check: throws when the dependency is not usable.
    public func register(_ name: String, timeout: Duration? = nil, _ check: @escaping @Sendable () async throws -> Void) {
        let entry = Check(name: name, timeout: timeout ?? defaultTimeout, run: check)
        checks.withLock { checks in
            if let index = checks.firstIndex(where: { $0.name == name }) {
                checks[index] = entry
            } else {
                checks.append(entry)
            }
        }
    }

    /// Names of the registered checks, in registration order.
    public var names: [String] { checks.withLock { $0.map(\.name) } }

    /// Always ok while the process runs.
    public func liveness() -> LivenessReport { LivenessReport() }

    /// Runs every check concurrently and reports each result.
    public func readiness() async -> ReadinessReport {
        let snapshot = checks.withLock { $0 }
        let results = await withTaskGroup(of: (Int, ReadinessReport.CheckResult).self) { group in
            for (index, check) in snapshot.enumerated() {
                group.addTask { (index, await Self.evaluate(check)) }
            }
            var results = [ReadinessReport.CheckResult?](repeating: nil, count: snapshot.count)
            for await (index, result) in group { results[index] = result }
            return results.compactMap { $0 }
        }
        return ReadinessReport(checks: results)
    }

    static func evaluate(_ check: Check) async -> ReadinessReport.CheckResult {
        if check.abandonedRuns.any {
            return .init(name: check.name, ok: false, error: "previous run still running after its \(check.timeout) timeout", duration: .zero)
        }
        let clock = ContinuousClock()
        let start = clock.now
        let outcome = await raceAgainstDeadline(check.timeout, abandoned: check.abandonedRuns, check.run)
        let elapsed = clock.now - start
        switch outcome {
        case .finished(.success):
            return .init(name: check.name, ok: true, error: nil, duration: elapsed)
        case .finished(.failure(let error)):
            return .init(name: check.name, ok: false, error: sanitize(error), duration: elapsed)
        case .timedOut:
            return .init(name: check.name, ok: false, error: "timed out after \(check.timeout)", duration: elapsed)
        case .cancelled:
            return .init(name: check.name, ok: false, error: "cancelled", duration: elapsed)
        }
    }

    /// One short line: first line of the description, URL credentials
    /// removed, control characters dropped, bounded in length. Reports may
    /// be served to anyone who can reach the probe port.
    static func sanitize(_ error: any Error) -> String {
        let firstLine = String(describing: error).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        var text = String(
            String.UnicodeScalarView(ConfigReader.redactingCredentials(firstLine).unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
        if text.isEmpty { text = String(describing: type(of: error)) }
        if text.count > maximumErrorLength { text = String(text.prefix(maximumErrorLength)) + "…" }
        return text
    }
}
