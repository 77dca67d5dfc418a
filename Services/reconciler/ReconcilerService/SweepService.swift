import Timing
import Foundation
import BillingModel
import ServiceRuntime
import Synchronization
import Telemetry

/// Runs the scheduled sweep: every ``ReconcilerConfiguration/sweepInterval``,
/// on the one replica that owns partition 0 of `storefront.webhooks.v1` (the
/// consumer group's assignment elects it, so scaling the reconciler does not
/// multiply sweeps). Each provider's sweep publishes what changed since its
/// previous successful sweep started, minus ``ReconcilerConfiguration/sweepOverlap``;
/// the first one after start-up (or after taking over) publishes everything.
/// A sweep that fails keeps the previous watermark, so the next one repeats it.
public final class SweepService: Service, Sendable {
    public let name = "reconciler-sweep"
    public let sweeper: Sweeper
    let providers: [Provider]
    let configuration: ReconcilerConfiguration
    let metrics: ReconcilerMetrics
    let logger: Logger
    let isLeader: @Sendable () -> Bool
    private let watermarks = Mutex<[Provider: Date]>([:])
    private let wasLeader = Atomic<Bool>(false)

    public init(
        sweeper: Sweeper, providers: [Provider], configuration: ReconcilerConfiguration, metrics: ReconcilerMetrics,
        logger: Logger, isLeader: @escaping @Sendable () -> Bool
    ) {
        self.sweeper = sweeper
        self.providers = providers
        self.configuration = configuration
        self.metrics = metrics
        self.logger = logger
        self.isLeader = isLeader
    }

    /// When each provider's latest successful sweep started.
    public var lastSweeps: [Provider: Date] { watermarks.withLock { $0 } }

    public func run() async throws {
        guard configuration.sweepInterval > .zero else {
            logger.info("scheduled sweeps are off (RECONCILER_SWEEP_INTERVAL=0)")
            await idleUntilStopped()
            return
        }
        let clock = ContinuousClock()
        var next = clock.now + configuration.firstSweepDelay
        while !Task.isCancelled {
            try? await Task.sleep(until: next, clock: clock)
            if Task.isCancelled { break }
            if isLeader() {
                if !wasLeader.exchange(true, ordering: .acquiringAndReleasing) {
                    // Another replica may have swept meanwhile; start from nothing known.
                    watermarks.withLock { $0 = [:] }
                    logger.info("this replica runs the scheduled sweeps (it owns \(Topics.webhooks)[0])")
                }
                _ = await sweepOnce()
                next = clock.now + configuration.sweepInterval
            } else {
                wasLeader.store(false, ordering: .releasing)
                // Look again soon: leadership follows the group's assignment.
                next = clock.now + min(configuration.sweepInterval, .seconds(5))
            }
        }
    }

    /// Sweeps every provider once, now; the providers in parallel (each has its own budget).
    public func sweepOnce() async -> [SweepListReport] {
        let sweepID = String(UUID().uuidString.lowercased().prefix(8))
        return await withTaskGroup(of: [SweepListReport].self) { group in
            for provider in providers {
                group.addTask {
                    let started = Date()
                    let since = self.watermarks.withLock { $0[provider] }.map { $0.addingTimeInterval(-self.configuration.sweepOverlap.inSeconds) }
                    let reports = await self.sweeper.sweep(provider, since: since, trigger: .sweep, sweepID: sweepID)
                    self.record(provider, reports, started: started, since: since, sweepID: sweepID)
                    return reports
                }
            }
            var all: [SweepListReport] = []
            for await reports in group { all += reports }
            return all
        }
    }

    private func record(_ provider: Provider, _ reports: [SweepListReport], started: Date, since: Date?, sweepID: String) {
        let failures = reports.compactMap(\.failure)
        let drift = reports.reduce(0) { $0 + $1.drift.count }
        for report in reports {
            metrics.sweepObjects(provider, report.list, "listed").set(Double(report.listed))
            metrics.sweepObjects(provider, report.list, "published").set(Double(report.published))
        }
        metrics.sweepDuration(provider).set(reports.reduce(0) { $0 + $1.seconds })
        metrics.driftTotal(provider).increment(by: drift)
        if failures.isEmpty {
            watermarks.withLock { $0[provider] = started }
            metrics.sweeps(provider, "ok").increment()
            metrics.drift(provider).set(Double(drift))
            metrics.lastSweep(provider).set(started.timeIntervalSince1970)
        } else {
            metrics.sweeps(provider, "failed").increment()
        }
        var metadata: [String: String] = [
            "sweep.id": sweepID, "provider": provider.rawValue, "since": since.map(Timestamp.format) ?? "everything",
            "seconds": String(format: "%.1f", reports.reduce(0) { $0 + $1.seconds }), "drift": String(drift),
        ]
        for report in reports {
            metadata["\(report.list.rawValue).listed"] = String(report.listed)
            metadata["\(report.list.rawValue).published"] = String(report.published)
        }
        if failures.isEmpty {
            logger.info("sweep done", metadata: metadata)
        } else {
            metadata["error"] = failures.joined(separator: "; ")
            logger.error("sweep incomplete; the next one repeats it", metadata: metadata)
        }
        for item in reports.flatMap(\.drift).prefix(20) {
            logger.info("drift: \(item)", metadata: ["sweep.id": sweepID])
        }
    }
}
