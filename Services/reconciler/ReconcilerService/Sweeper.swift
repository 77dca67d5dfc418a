import Timing
import Foundation
import HTTPClient
import BillingModel
import Postgres
import Providers
import Telemetry

/// A subscription whose provider status differs from its projection row.
public struct Drift: Sendable, Hashable, CustomStringConvertible {
    public var provider: Provider
    public var subscriptionID: String
    /// The row's status; nil when the projection has no row for it.
    public var projected: String?
    /// What the provider says.
    public var actual: String

    public var description: String {
        "\(provider.rawValue):\(subscriptionID) projection=\(projected ?? "(no row)") provider=\(actual)"
    }
}

/// What one list of one provider held in a sweep.
public struct SweepListReport: Sendable {
    public var provider: Provider
    public var list: SweepList
    public var pages = 0
    /// Items listed.
    public var listed = 0
    /// Items changed since the sweep's `since` (all of them without one, or when the item has no update time).
    public var changed = 0
    /// Snapshots acknowledged by the broker.
    public var published = 0
    /// Subscriptions only, when a projection reader is configured.
    public var drift: [Drift] = []
    /// Whether drift was checked for every page (false without a reader, or when the database failed).
    public var driftChecked = false
    /// Set when the list could not be read to the end.
    public var failure: String?
    public var seconds = 0.0

    public init(provider: Provider, list: SweepList) {
        self.provider = provider
        self.list = list
    }
}

/// Where a running sweep is, for progress lines.
public struct SweepProgress: Sendable {
    public var provider: Provider
    public var list: SweepList
    public var page: Int
    /// The provider's page count, when it says.
    public var pageCount: Int?
    public var listed: Int
    public var published: Int
    public var drift: Int
}

/// Reads the projection's status of subscriptions, for drift.
public protocol ProjectionStatusReader: Sendable {
    /// The `subscriptions` rows' status by subscription id; ids without a row are absent.
    func statuses(_ provider: Provider, subscriptionIDs: [String]) async throws -> [String: String]
}

/// Pages through a provider's lists and publishes a snapshot of each object
/// changed since `since` (by the provider's update time where the object has
/// one; every object otherwise), shaped as its single-object endpoint answers.
///
/// Lists are newest first and new objects are added at the front while it
/// pages, which shifts items to later pages: an item may be listed twice
/// (the snapshot is simply published twice), none is skipped. A page that
/// fails for a reason waiting may cure is asked again with backoff (the
/// provider budget and `Retry-After` pace it); when it keeps failing, that
/// list's sweep ends with a failure and the caller keeps its watermark.
public struct Sweeper: Sendable {
    public let source: any SnapshotSource
    public let publisher: any SnapshotPublisher
    public let statuses: (any ProjectionStatusReader)?
    /// Told whether each page request worked (the service's readiness), when given.
    public let health: ProviderHealth?
    public let logger: Logger
    /// Page-level retries after the client's own attempts are used up.
    public let pageAttempts: Int
    public let pageRetry: RetryPolicy
    /// Safety bound on pages per list.
    public let maximumPages: Int

    public init(
        source: any SnapshotSource, publisher: any SnapshotPublisher, statuses: (any ProjectionStatusReader)?, health: ProviderHealth? = nil,
        logger: Logger, pageAttempts: Int = 5, pageRetry: RetryPolicy = RetryPolicy(baseDelay: .seconds(1), maxDelay: .seconds(30)),
        maximumPages: Int = 100_000
    ) {
        self.source = source
        self.publisher = publisher
        self.statuses = statuses
        self.health = health
        self.logger = logger
        self.pageAttempts = max(1, pageAttempts)
        self.pageRetry = pageRetry
        self.maximumPages = maximumPages
    }

    /// Sweeps every list of `provider`.
    /// - Parameters:
    ///   - since: publish objects updated at or after this; nil publishes everything.
    ///   - trigger: `.sweep` or `.cli`; the snapshots' trigger is `<kind>:<sweepID>`.
    ///   - progress: called after each page.
    public func sweep(
        _ provider: Provider, since: Date?, trigger: ReconcileTrigger.Kind, sweepID: String,
        progress: @Sendable (SweepProgress) -> Void = { _ in }
    ) async -> [SweepListReport] {
        var reports: [SweepListReport] = []
        for list in SweepList.lists(of: provider) {
            reports.append(await sweep(provider, list, since: since, label: "\(trigger.rawValue):\(sweepID)", progress: progress))
            if Task.isCancelled { break }
        }
        return reports
    }

    func sweep(
        _ provider: Provider, _ list: SweepList, since: Date?, label: String,
        progress: @Sendable (SweepProgress) -> Void
    ) async -> SweepListReport {
        var report = SweepListReport(provider: provider, list: list)
        report.driftChecked = list == .subscriptions && statuses != nil
        let clock = ContinuousClock()
        let start = clock.now
        await sweep(into: &report, since: since, label: label, progress: progress)
        report.seconds = (clock.now - start).inSeconds
        return report
    }

    private func sweep(
        into report: inout SweepListReport, since: Date?, label: String,
        progress: @Sendable (SweepProgress) -> Void
    ) async {
        let (provider, list) = (report.provider, report.list)
        var number = 1
        while number <= maximumPages {
            let started = Date()
            let page: ProviderPage
            do {
                page = try await fetchPage(provider, list, number: number)
            } catch {
                report.failure = "page \(number): \(error)"
                logger.error(
                    "sweep stopped: a page could not be read",
                    metadata: [
                        "provider": provider.rawValue, "list": list.rawValue, "page": String(number), "error": "\(error)",
                    ])
                return
            }
            let finished = Date()
            report.pages += 1
            report.listed += page.items.count

            var snapshots: [KeyedSnapshot] = []
            var statusesByID: [String: String] = [:]
            for item in page.items {
                guard let object = SnapshotBuilder.listed(provider, list, item: item.json) else { continue }
                if list == .subscriptions, let status = object.status { statusesByID[object.id] = status }
                if let since, let updated = object.updatedAt, updated < since { continue }
                report.changed += 1
                let target = EntityRef(provider, list.entity, object.id)
                let snapshot = ProviderSnapshot(
                    snapshotID: UUID().uuidString.lowercased(), provider: provider, entity: list.entity, entityID: object.id, outcome: .found,
                    body: SnapshotBuilder.singleObjectBody(provider, list, item: item.raw), fetchStartedAt: started, fetchFinishedAt: finished,
                    trigger: label)
                snapshots.append(KeyedSnapshot(key: SnapshotBuilder.key(target, customerID: object.customerID), snapshot: snapshot))
            }
            do {
                try await publishWithRetry(snapshots)
            } catch {
                report.failure = "publishing page \(number): \(error)"
                return
            }
            report.published += snapshots.count
            if report.driftChecked, !statusesByID.isEmpty, let statuses {
                do {
                    let projected = try await statuses.statuses(provider, subscriptionIDs: Array(statusesByID.keys))
                    for (id, actual) in statusesByID.sorted(by: { $0.key < $1.key }) where projected[id] != actual {
                        report.drift.append(Drift(provider: provider, subscriptionID: id, projected: projected[id], actual: actual))
                    }
                } catch {
                    report.driftChecked = false
                    logger.warning("drift not checked: the projection could not be read", metadata: ["error": "\(error)"])
                }
            }
            progress(
                SweepProgress(
                    provider: provider, list: list, page: number, pageCount: page.pageCount,
                    listed: report.listed, published: report.published, drift: report.drift.count))
            guard page.hasMore, !Task.isCancelled else { break }
            number += 1
        }
        if Task.isCancelled, report.failure == nil { report.failure = "cancelled" }
    }

    /// The client retries each request; a page that still fails transiently is asked again here.
    private func fetchPage(_ provider: Provider, _ list: SweepList, number: Int) async throws -> ProviderPage {
        var attempt = 1
        while true {
            do {
                let page = try await source.page(provider, list, number: number)
                health?.succeeded(provider)
                return page
            } catch {
                if !Reconciler.isPermanent(error) { health?.failed(provider, error: error.description) }
                guard error.isTransient || error.kind == .decoding, attempt < pageAttempts, !Task.isCancelled else { throw error }
                var delay = pageRetry.backoff(beforeRetry: attempt)
                if let wanted = error.retryAfter { delay = max(delay, wanted) }
                logger.warning(
                    "sweep page failed; asking again",
                    metadata: [
                        "provider": provider.rawValue, "list": list.rawValue, "page": String(number), "error": error.description,
                        "retry.in_seconds": String(format: "%.1f", delay.inSeconds),
                    ])
                try await Task.sleep(for: delay)
                attempt += 1
            }
        }
    }

    private func publishWithRetry(_ snapshots: [KeyedSnapshot]) async throws {
        guard !snapshots.isEmpty else { return }
        var attempt = 1
        while true {
            do {
                return try await publisher.publish(snapshots)
            } catch {
                guard attempt < pageAttempts, !Task.isCancelled else { throw error }
                logger.warning("sweep snapshots not published; retrying", metadata: ["error": "\(error)", "count": String(snapshots.count)])
                try await Task.sleep(for: pageRetry.backoff(beforeRetry: attempt))
                attempt += 1
            }
        }
    }
}

/// Reads statuses from the projection's `subscriptions` table (read only).
public struct PostgresProjectionStatusReader: ProjectionStatusReader {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public func statuses(_ provider: Provider, subscriptionIDs: [String]) async throws -> [String: String] {
        guard !subscriptionIDs.isEmpty else { return [:] }
        let ids = try PostgresJSON(encoding: subscriptionIDs)
        let rows = try await pool.query(
            """
            SELECT subscription_id, status FROM subscriptions
            WHERE provider = \(provider.rawValue) AND subscription_id IN (SELECT jsonb_array_elements_text(\(ids)))
            """)
        var result: [String: String] = [:]
        for row in rows {
            let (id, status) = try row.decode((String, String).self)
            result[id] = status
        }
        return result
    }
}
