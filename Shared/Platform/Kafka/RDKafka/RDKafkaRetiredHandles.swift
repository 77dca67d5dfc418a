/// The producer handles a ``KafkaProducer`` replaced: those still shutting
/// down, whose purged messages are still being reported, and the totals of
/// those that finished (folded in, so the list stays as short as the
/// replacements in flight).
struct RetiredHandles: Sendable {
    var draining: [RDKafkaProducerInstance] = []
    var finished = KafkaProducerCounters(delivered: 0, failed: 0)

    var counters: KafkaProducerCounters {
        draining.reduce(finished) { $0.adding($1.context.counters) }
    }

    /// `handle` shut down: its counts are final.
    mutating func finish(_ handle: RDKafkaProducerInstance) {
        guard let index = draining.firstIndex(where: { $0 === handle }) else { return }
        finished = finished.adding(draining.remove(at: index).context.counters)
    }
}
