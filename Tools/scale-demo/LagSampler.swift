import Timing
import Foundation
import Kafka
import Synchronization

/// One reading of the projector group's progress.
struct LagSample: Sendable {
    /// Seconds since the first webhook was started.
    let time: Double
    /// Webhooks the gateway had acknowledged (each is a record on the topic).
    let acknowledged: Int
    /// The group's committed offset per partition (nil: nothing committed yet).
    let committed: [Int32: Int64]
    /// The committed offsets' sum minus the sum before the run: records consumed and committed during the run.
    let committedDuringRun: Int64
    /// Per partition, the broker's high watermark minus the committed offset.
    /// Tansu under-reports the watermark (see `KafkaConsumerGroupLagReader`),
    /// so this misses records, but a partition with a positive figure
    /// certainly has records waiting.
    var waiting: [Int32: Int64] = [:]

    /// Records acknowledged but not committed yet. Computed from the demo's
    /// own count rather than the broker's high watermark, which Tansu 0.6
    /// under-reports (see `KafkaConsumerGroupLagReader`).
    var lag: Int64 { max(0, Int64(acknowledged) - committedDuringRun) }
}

/// Samples the group's committed offsets on `storefront.webhooks.v1` at a
/// fixed interval, from a reader that never joins the group.
final class LagSampler: Sendable {
    let reader: KafkaConsumerGroupLagReader
    let topic: String
    let progress: SendProgress
    let baseline: Int64
    private let samples = Mutex<[LagSample]>([])
    private let errors = Mutex<[String]>([])
    private let unreadable = Mutex<[Double]>([])

    /// Creates a sampler; reads the committed offsets before the run as the baseline.
    static func make(brokers: String, group: String, topic: String, progress: SendProgress) async throws -> LagSampler {
        let reader = try KafkaConsumerGroupLagReader(
            // No librdkafka log lines: a reading that fails is recorded (and reported) instead.
            configuration: KafkaClientConfiguration(
                bootstrapServers: brokers.split(separator: ",").map(String.init), clientID: "scale-demo-lag",
                logHandler: nil),
            groupID: group)
        let lag = try await reader.lag(topic: topic)
        let baseline = lag.partitions.reduce(Int64(0)) { $0 + ($1.committedOffset ?? 0) }
        return LagSampler(reader: reader, topic: topic, progress: progress, baseline: baseline)
    }

    private init(reader: KafkaConsumerGroupLagReader, topic: String, progress: SendProgress, baseline: Int64) {
        self.reader = reader
        self.topic = topic
        self.progress = progress
        self.baseline = baseline
    }

    var all: [LagSample] { samples.withLock { $0 } }
    var latest: LagSample? { samples.withLock { $0.last } }
    var failures: [String] { errors.withLock { $0 } }
    /// When each failed reading began (the broker did not answer in time), in seconds since the start.
    var unreadableTimes: [Double] { unreadable.withLock { $0 } }

    /// Samples until cancelled.
    func run(since start: ContinuousClock.Instant, interval: Duration) async {
        let clock = ContinuousClock()
        var next = clock.now
        while !Task.isCancelled {
            await sample(since: start)
            next = next + interval
            if next < clock.now { next = clock.now }
            try? await Task.sleep(until: next, clock: clock)
        }
    }

    /// Takes one sample now.
    @discardableResult
    func sample(since start: ContinuousClock.Instant) async -> LagSample? {
        // Read the count first: records acknowledged after the offsets were read would overstate the lag.
        let acknowledged = progress.acknowledged
        let began = (ContinuousClock.now - start).inSeconds
        do {
            let lag = try await reader.lag(topic: topic, timeout: .seconds(2))
            var committed: [Int32: Int64] = [:]
            for partition in lag.partitions { committed[partition.partition] = partition.committedOffset }
            let sum = lag.partitions.reduce(Int64(0)) { $0 + ($1.committedOffset ?? 0) }
            var sample = LagSample(
                time: (ContinuousClock.now - start).inSeconds, acknowledged: acknowledged,
                committed: committed, committedDuringRun: sum - baseline)
            for partition in lag.partitions where partition.committedOffset != nil { sample.waiting[partition.partition] = partition.lag }
            samples.withLock { $0.append(sample) }
            return sample
        } catch {
            errors.withLock { if $0.count < 10 { $0.append("\(error)") } }
            unreadable.withLock { $0.append(began) }
            return nil
        }
    }
}
