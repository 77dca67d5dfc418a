import AppStoreReports
import Foundation
import ServiceRuntime
import Timing
import Telemetry

/// Sends one report to Apple (``AppStoreReportClient``; a fake in the unit tests).
public protocol AppStoreReportSending: Sendable {
    func deliver(_ report: ExternalPurchaseReport) async -> AppStoreReportClient.Outcome
}

extension AppStoreReportClient: AppStoreReportSending {}

/// Reports external purchase tokens to Apple (docs/app-store.md, "Reports
/// to Apple"). Each round, every ``AppStoreReporterConfiguration/interval``:
///
/// 1. plans: for each token, ``ReportPlan`` says which lines are due given
///    what is already kept; each new line gets its request identifier and
///    body and is stored before anything is sent, so a restart resends the
///    same request and never makes a second one for the same line;
/// 2. sends the due lines it claimed and records each answer: accepted;
///    retried later (Apple's `Retry-After`, else the schedule, whose last
///    wait repeats: a 401 or an outage is an operator's fix, the lines wait
///    for it); or dead with Apple's reason (a 400 for a report Apple does
///    not hold).
///
/// A round that had a line accepted runs again at once, so a renewal or a
/// refund waiting for its charge goes out in the same tick. Replicas may
/// run it side by side: the table's key keeps one line per movement, and a
/// claim leases its lines.
public struct AppStoreReporter: Service {
    public let name = "app-store-reporter"
    let store: any AppStoreReportStore
    let sender: any AppStoreReportSending
    let configuration: AppStoreReporterConfiguration
    let metrics: AppStoreReporterMetrics
    let logger: Logger
    let now: @Sendable () -> Date
    /// False until migrations are done: no round before.
    let isReady: @Sendable () -> Bool

    /// Lines claimed per round.
    static let claimLimit = 100
    /// A claim's lease: longer than a send (two requests of the client's default timeout), so a live reporter keeps its line.
    static let lease: Duration = .seconds(120)

    public init(
        store: any AppStoreReportStore, sender: any AppStoreReportSending, configuration: AppStoreReporterConfiguration,
        metrics: AppStoreReporterMetrics, logger: Logger, now: @escaping @Sendable () -> Date = { Date() },
        isReady: @escaping @Sendable () -> Bool = { true }
    ) {
        self.store = store
        self.sender = sender
        self.configuration = configuration
        self.metrics = metrics
        self.logger = logger
        self.now = now
        self.isReady = isReady
    }

    public func run() async throws {
        while !Task.isCancelled {
            if isReady() {
                do {
                    var rounds = 0
                    while try await round().accepted > 0, rounds < 10 { rounds += 1 }
                } catch {
                    metrics.failedRounds.increment()
                    logger.error("App Store report round failed", metadata: ["error": "\(error)"])
                }
            }
            try? await Task.sleep(for: configuration.interval)
        }
    }

    /// What one round did.
    public struct RoundResult: Sendable, Equatable {
        public var planned = 0
        public var accepted = 0
        public var retried = 0
        public var refused = 0
    }

    /// Plans, sends what is due, records the answers and sets the lag gauge.
    @discardableResult
    public func round() async throws -> RoundResult {
        var result = RoundResult()
        result.planned = try await store.insert(try plan(try await store.tokens(), at: now()))
        for line in try await store.claimDue(limit: Self.claimLimit, lease: Self.lease, now: now()) {
            let outcome = await send(line)
            try await store.record(line, outcome, now: now())
            switch outcome {
            case .accepted: result.accepted += 1
            case .retry: result.retried += 1
            case .dead: result.refused += 1
            }
        }
        let oldest = try await store.oldestPending()
        metrics.lag.set(oldest.map { max(0, now().timeIntervalSince($0)) } ?? 0)
        return result
    }

    /// The new lines due for `tokens`, each with a fresh request identifier and its body.
    func plan(_ tokens: [AppStoreTokenState], at date: Date) throws -> [AppStoreReportLine] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let noPurchaseAfter = configuration.noPurchaseAfter.inSeconds
        return try tokens.flatMap { state in
            try ReportPlan.due(
                for: state.token, movements: state.movements, accepted: state.accepted, pending: state.unanswered, now: date,
                noPurchaseAfter: noPurchaseAfter
            ).map { planned in
                let id = UUID().uuidString.lowercased()
                let report = planned.report(for: state.token, requestIdentifier: id)
                return AppStoreReportLine(
                    externalPurchaseID: state.token.externalPurchaseID, key: planned.key, requestIdentifier: id,
                    body: Array(try encoder.encode(report)))
            }
        }
    }

    /// One send of a kept line, and what to record of it.
    func send(_ line: AppStoreReportLine) async -> AppStoreReportLine.Outcome {
        metrics.attempts.increment()
        guard let report = try? JSONDecoder().decode(ExternalPurchaseReport.self, from: Data(line.body)) else {
            metrics.refused.increment()
            return .dead(reason: "the kept report no longer decodes")
        }
        switch await sender.deliver(report) {
        case .accepted:
            metrics.accepted.increment()
            return .accepted
        case .refused(let reason):
            metrics.refused.increment()
            logger.warning(
                "Apple refused an external purchase report",
                metadata: ["app_store.request_id": "\(line.requestIdentifier)", "app_store.line": "\(line.key)", "reason": "\(reason)"])
            return .dead(reason: reason)
        case .retry(let reason, let after):
            metrics.retried.increment()
            let failed = line.attempts + 1
            let schedule = configuration.retrySchedule
            let wait = after ?? schedule.delay(afterFailedAttempts: min(failed, schedule.delays.count)) ?? .seconds(60)
            return .retry(at: now().addingTimeInterval(wait.inSeconds), reason: reason)
        }
    }
}
