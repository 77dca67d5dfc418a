import Foundation
import BillingModel
import Entitlements
import ServiceRuntime
import Telemetry
import Timing

/// The seller's revenue figures as gauges, per provider and currency:
/// MRR now, this month's MRR movements, subscribers, trials, grace, and
/// this month's subscription, refund and dispute counts (docs/metrics.md,
/// "Revenue"; definitions: docs/revenue.md).
///
/// Computed on a timer, never during a scrape: each computation folds the
/// whole event log, read once and then only what is new
/// (``LogRevenueFigures``). Every replica computes and
/// publishes the same figures, so dashboards take `max by (provider,
/// currency, …)`, never `sum`. "This month" is the calendar month in UTC:
/// the month-to-date gauges fall back to the new month's figures at
/// 00:00 UTC on the 1st. A provider and currency with nothing left to show
/// drops to 0 rather than keeping its last figures.
public struct RevenueGauges: Service {
    /// Often enough for a revenue panel, rare enough that folding the log
    /// costs little (RECONCILER_REVENUE_INTERVAL).
    public static let defaultInterval: Duration = .seconds(300)
    /// The first computation after start-up: soon, but not before the
    /// service had a moment to settle.
    static let firstDelay: Duration = .seconds(10)

    public let name = "revenue-gauges"
    let source: any RevenueFiguresSource
    let registry: MetricsRegistry
    let interval: Duration
    let logger: Logger
    let now: @Sendable () -> Date
    let failures: Counter
    let lastSuccess: Gauge
    let duration: Gauge
    let eventsRead: Gauge
    /// Provider and currency groups published so far, to zero the ones that vanish.
    private let published = PublishedGroups()

    public init(
        source: any RevenueFiguresSource, registry: MetricsRegistry, logger: Logger, interval: Duration = RevenueGauges.defaultInterval,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.source = source
        self.registry = registry
        self.interval = interval
        self.logger = logger
        self.now = now
        failures = registry.counter(
            "reconciler_revenue_refresh_failures_total",
            help: "Revenue computations that failed (the revenue gauges keep their last values).")
        lastSuccess = registry.gauge(
            "reconciler_revenue_last_refresh_timestamp_seconds", help: "Unix time of the latest successful revenue computation.")
        duration = registry.gauge(
            "reconciler_revenue_refresh_duration_seconds", help: "How long the latest successful revenue computation took.")
        eventsRead = registry.gauge(
            "reconciler_revenue_events_read", help: "Events the latest successful revenue computation read from the log.")
    }

    public func run() async throws {
        var delay = min(Self.firstDelay, interval)
        while !Task.isCancelled {
            try? await Task.sleep(for: delay)
            if Task.isCancelled { return }
            await refresh()
            delay = interval
        }
    }

    /// Computes the figures once and publishes them; a failure is counted
    /// and logged, and the gauges keep their last values.
    func refresh() async {
        let started = ContinuousClock.now
        let asOf = now()
        do {
            let figures = try await source.figures(asOf: asOf)
            record(figures.rows)
            eventsRead.set(Double(figures.eventsRead))
            duration.set((ContinuousClock.now - started).inSeconds)
            lastSuccess.set(asOf.timeIntervalSince1970)
        } catch {
            failures.increment()
            logger.warning("revenue figures not computed", metadata: ["error": "\(error)"])
        }
        // The fold's histories and the read's rows are freed by now; what
        // they held would otherwise stay resident between computations
        // (issue 22's memory figures). The kept log itself stays.
        FreeMemory.giveBack()
    }

    func record(_ rows: [RevenueReportRow]) {
        var seen: Set<[String: String]> = []
        for row in rows {
            let group = ["provider": row.provider.rawValue, "currency": row.currency]
            seen.insert(group)
            set(row, group)
        }
        for group in published.replace(with: seen) {
            set(nil, group)
        }
    }

    /// Sets every gauge of `group` from `row`; nil sets them to 0.
    private func set(_ row: RevenueReportRow?, _ group: [String: String]) {
        for figure in RevenueGauge.allCases {
            let gauge = registry.gauge(figure.name, help: figure.help, labels: group.merging(figure.labels) { $1 })
            gauge.set(row.map(figure.value) ?? 0)
        }
    }
}
