import Foundation
import Postgres
import Synchronization

/// `deliveries`: writes a signed delivery plan to a file (see ``DeliveryFile``).
enum DeliveriesCommand {
    static func run(_ options: Options) throws {
        let count = try options.int("count", in: 1...10_000_000)
        let deliveries = WebhookBodies.plan(
            runID: try options.string("run-id"), deliveries: count,
            subscriptions: try options.int("subscriptions", default: max(1, count / 5), in: 1...10_000_000),
            bodyBytes: try options.int("body-bytes", default: 0, in: 0...1_000_000), secret: try options.string("secret"),
            ownership: try Options.ownershipProof())
        try DeliveryFile.write(deliveries, to: try options.string("out"))
        let sizes = deliveries.map(\.body.count)
        result(["deliveries": String(count), "min_body_bytes": String(sizes.min() ?? 0), "max_body_bytes": String(sizes.max() ?? 0)])
    }
}

/// `load`: sends every delivery of a file once, closed loop (`--connections`
/// at a time, each as soon as a connection is free) or open loop (`--rate`
/// per second on a fixed schedule, whatever the answers). With
/// `--visibility-db`, also measures webhook received → visible in PostgreSQL
/// (see ``VisibilityProbe``).
enum LoadCommand {
    static func run(_ options: Options) async throws {
        let target = try HTTPTarget(url: try options.string("url"))
        var deliveries = try DeliveryFile.read(try options.string("deliveries"))
        let limit = try options.int("limit", default: deliveries.count)
        deliveries = Array(deliveries.prefix(limit))
        let rate = try options.double("rate", default: 0)
        let connections = try options.int("connections", default: 64, in: 1...4096)
        let timeout = try options.int("timeout", default: 60, in: 1...3600)
        let load = WebhookLoad(
            target: target, deliveries: deliveries, connections: connections,
            mode: rate > 0 ? .openLoop(rate: rate) : .closedLoop, timeoutSeconds: timeout)

        var probe: VisibilityProbe?
        if let url = options.optionalString("visibility-db") {
            probe = try await VisibilityProbe.start(databaseURL: url, interval: .milliseconds(try options.int("poll-ms", default: 5, in: 1...1000)))
        }
        let report = await withCheckedContinuation { (continuation: CheckedContinuation<LoadReport, Never>) in
            Thread { continuation.resume(returning: load.run()) }.start()
        }

        let latencies = report.latencies.sorted()
        let elapsed = Double(report.lastDone &- report.firstSend) / 1e9
        let statuses = report.statuses.keys.sorted().map { "\($0):\(report.statuses[$0]!)" }.joined(separator: ",")
        let failures = report.failures.keys.sorted().map { "\($0):\(report.failures[$0]!)" }.joined(separator: ",")
        if let path = options.optionalString("accepted-out") {
            let ids = report.accepted.sorted().map { deliveries[$0].webhookID }.joined(separator: "\n")
            guard FileManager.default.createFile(atPath: path, contents: Data((ids + "\n").utf8)) else {
                throw Options.Invalid(description: "cannot write \(path)")
            }
        }
        var pairs: [(String, String)] = [
            ("sent", String(deliveries.count)), ("completed", String(report.completed)), ("accepted", String(report.successes)),
            ("statuses", statuses.isEmpty ? "none" : statuses), ("errors", failures.isEmpty ? "none" : failures),
            ("seconds", fixed(elapsed, 2)), ("accepted_per_second", fixed(Double(report.successes) / max(elapsed, 1e-9), 1)),
            ("p50_ms", fixed(percentile(latencies, 50) / 1000, 2)), ("p99_ms", fixed(percentile(latencies, 99) / 1000, 2)),
            ("max_ms", fixed(Double(latencies.last ?? 0) / 1000, 2)),
        ]
        if let probe {
            let prefix = options.string("visibility-prefix", default: "lemonsqueezy:")
            let visibility = try await probe.finish(
                dedupKeyPrefix: prefix, expect: report.successes,
                timeout: .seconds(try options.int("visibility-timeout", default: 120)))
            pairs += [
                ("visible", String(visibility.visible)), ("rows", String(visibility.rows)),
                ("visible_p50_ms", fixed(visibility.p50 * 1000, 1)), ("visible_p99_ms", fixed(visibility.p99 * 1000, 1)),
                ("visible_max_ms", fixed(visibility.max * 1000, 1)), ("snapshots", String(visibility.samples)),
                ("applied_p50_ms", fixed(visibility.appliedP50 * 1000, 1)), ("applied_p99_ms", fixed(visibility.appliedP99 * 1000, 1)),
            ]
        }
        print("RESULT " + pairs.map { "\($0.0)=\($0.1)" }.joined(separator: " "))
    }
}

/// Measures when rows become visible to other sessions without touching the
/// system under test: it samples `pg_current_snapshot()` every few
/// milliseconds (a cheap call that reads no table), then, afterwards, finds
/// for each `billing_events` row the first sample in which the transaction
/// that inserted it (`xmin`) had committed. The projector writes an event
/// and the subscription it changes in one transaction, so that instant is
/// when the status became visible; minus the row's `received_at` (the
/// receiver's clock, millisecond precision) it is received → visible.
final class VisibilityProbe: Sendable {
    struct Sample: Sendable {
        let time: Double
        let xmin: UInt64
        let xmax: UInt64
        let inProgress: Set<UInt64>

        /// Whether `xid` had finished (committed, for the rows we look at) in this snapshot.
        func finished(_ xid: UInt64) -> Bool { xid < xmin || (xid < xmax && !inProgress.contains(xid)) }
    }
    struct Outcome: Sendable {
        var rows = 0, visible = 0, samples = 0
        var p50 = Double.nan, p99 = Double.nan, max = Double.nan
        /// `applied_at` (the projector transaction's start, `now()`) minus `received_at`: a cross-check
        /// that is earlier than visibility by the transaction's own duration.
        var appliedP50 = Double.nan, appliedP99 = Double.nan
    }

    private let samples = Mutex<[Sample]>([])
    private let stop = Atomic<Bool>(false)
    private let connection: PostgresConnection
    private let databaseURL: String
    private let task = Mutex<Task<Void, Never>?>(nil)

    private init(connection: PostgresConnection, databaseURL: String) {
        self.connection = connection
        self.databaseURL = databaseURL
    }

    static func start(databaseURL: String, interval: Duration) async throws -> VisibilityProbe {
        let probe = VisibilityProbe(
            connection: try await PostgresConnection.connect(PostgresConfiguration(url: databaseURL)),
            databaseURL: databaseURL)
        let loop = Task { await probe.sample(every: interval) }
        probe.task.withLock { $0 = loop }
        return probe
    }

    private func sample(every interval: Duration) async {
        while !stop.load(ordering: .relaxed) {
            if let text = try? await connection.query("SELECT pg_current_snapshot()::text").first?.decode(column: 0, as: String.self) {
                let time = wallSeconds()
                let parts = text.split(separator: ":", omittingEmptySubsequences: false)
                if parts.count == 3, let xmin = UInt64(parts[0]), let xmax = UInt64(parts[1]) {
                    let inProgress = Set(parts[2].split(separator: ",").compactMap { UInt64($0) })
                    samples.withLock { $0.append(Sample(time: time, xmin: xmin, xmax: xmax, inProgress: inProgress)) }
                }
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// Waits until `expect` rows with the prefix exist (or `timeout`), stops sampling and computes the latencies.
    func finish(dedupKeyPrefix: String, expect: Int, timeout: Duration) async throws -> Outcome {
        let counter = try await PostgresConnection.connect(PostgresConfiguration(url: databaseURL))
        let pattern = dedupKeyPrefix + "%"
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            let rows =
                try await counter.query("SELECT count(*) FROM billing_events WHERE dedup_key LIKE \(pattern)")
                .first?.decode(column: 0, as: Int.self) ?? 0
            if rows >= expect { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        try await Task.sleep(for: .milliseconds(50)) // one more snapshot after the last commit
        stop.store(true, ordering: .relaxed)
        await task.withLock { $0 }?.value
        let rows = try await counter.query(
            "SELECT xmin::text, extract(epoch FROM received_at)::float8 FROM billing_events WHERE dedup_key LIKE \(pattern)")
        let applied = try await counter.query(
            """
            SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM applied_at - received_at)::float8),
                   percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM applied_at - received_at)::float8)
            FROM billing_events WHERE dedup_key LIKE \(pattern)
            """
        ).first
        await counter.close()
        await connection.close()

        let all = samples.withLock { $0 }
        var outcome = Outcome(rows: rows.count, samples: all.count)
        if let applied, let (p50, p99) = try? applied.decode((Double?, Double?).self) {
            outcome.appliedP50 = p50 ?? .nan
            outcome.appliedP99 = p99 ?? .nan
        }
        guard let epochSample = all.first else { return outcome }
        // xmin is a 32-bit xid; snapshots are 64-bit (epoch << 32 | xid).
        let epoch = epochSample.xmax >> 32
        var latencies: [Double] = []
        for row in rows {
            let (xidText, received) = try row.decode((String, Double).self)
            guard let xid32 = UInt64(xidText) else { continue }
            let xid = epoch << 32 | xid32
            // Visibility only ever turns on: binary search for the first sample that sees it.
            var low = 0, high = all.count
            while low < high {
                let middle = (low + high) / 2
                if all[middle].finished(xid) { high = middle } else { low = middle + 1 }
            }
            guard low < all.count else { continue }
            latencies.append(all[low].time - received)
        }
        latencies.sort()
        outcome.visible = latencies.count
        func rank(_ p: Double) -> Double {
            latencies.isEmpty ? .nan : latencies[min(latencies.count - 1, max(0, Int((p / 100 * Double(latencies.count)).rounded(.up)) - 1))]
        }
        outcome.p50 = rank(50)
        outcome.p99 = rank(99)
        outcome.max = latencies.last ?? .nan
        return outcome
    }
}
