/// How long the projector group took to consume every partition again after
/// one member was killed, read from the committed offsets alone.
///
/// Under steady traffic every owned partition commits several times a second.
/// After a SIGKILL, the dead member's partitions stop committing until the
/// group notices (session timeout) and reassigns them; with the eager
/// protocol every member gives up its partitions during each rebalance, so
/// all partitions pause briefly too, and joining the fourth member adds a
/// rebalance of its own. A *stall* is a gap of at least the threshold
/// between two commits of one partition, starting at most one threshold
/// before the kill and ended by a commit (so records were waiting: a drained
/// partition never commits again and is not counted). The rebalance is over
/// when the last such stall ended.
struct RebalanceAnalysis: Sendable {
    struct Stall: Sendable {
        let partition: Int32
        let from: Double
        let to: Double
        var length: Double { to - from }
    }

    let killTime: Double
    let stalls: [Stall]
    /// Seconds from the kill until every partition committed again after its last stall.
    var duration: Double? { stalls.map(\.to).max().map { $0 - killTime } }

    static func analyse(samples: [LagSample], killTime: Double, threshold: Double) -> RebalanceAnalysis {
        let partitions = Set(samples.flatMap { $0.committed.keys }).sorted()
        var stalls: [Stall] = []
        for partition in partitions {
            var lastOffset: Int64?
            var lastAdvance: Double?
            for sample in samples {
                let offset = sample.committed[partition] ?? -1
                defer { lastOffset = offset }
                guard let previous = lastOffset else { lastAdvance = sample.time; continue }
                guard offset > previous else { continue }
                if let since = lastAdvance, sample.time - since >= threshold, since >= killTime - threshold {
                    stalls.append(Stall(partition: partition, from: since, to: sample.time))
                }
                lastAdvance = sample.time
            }
        }
        return RebalanceAnalysis(killTime: killTime, stalls: stalls.sorted { ($0.to, $0.partition) < ($1.to, $1.partition) })
    }
}
