import Synchronization

/// Keeps a producer's declared topics in existence, with their declared
/// partitions and configuration.
///
/// Topics are created at start-up, but a broker can lose them while the
/// services run: the local broker keeps everything in memory, so a restart
/// empties it, and a topic can be deleted by hand. Whoever asks for a missing
/// topic first decides its shape; a broker that auto-creates gives it its own
/// defaults (Tansu four partitions, where Storefront declares six), and a
/// topic cannot lose partitions afterwards. So the producer never lets the
/// broker auto-create (`allow.auto.create.topics=false`) and this keeper
/// creates the topics itself: after the producer replaced its handle, when a
/// send or delivery names an unknown topic, and every
/// ``KafkaProducerConfiguration/topicCheckInterval`` from the producer's
/// service loop. Creating a topic that exists is a no-op, so this is safe
/// from every replica at once.
final class KafkaTopicKeeper: Sendable {
    typealias Create = @Sendable ([KafkaTopicSpecification]) async throws -> Void

    /// The declared topics.
    let topics: [KafkaTopicSpecification]
    private let create: Create
    private let logHandler: KafkaLogHandler?
    /// True while one ensure runs: concurrent triggers (a burst of unknown-topic
    /// reports) collapse into that one request.
    private let running = Mutex(false)

    /// - Parameters:
    ///   - topics: the topics to keep; empty makes every call a no-op.
    ///   - create: creates missing topics and leaves existing ones (``KafkaAdmin/createTopics(_:timeout:)``).
    init(topics: [KafkaTopicSpecification], logHandler: KafkaLogHandler?, create: @escaping Create) {
        self.topics = topics
        self.create = create
        self.logHandler = logHandler
    }

    /// Creates whichever declared topics are missing, unless another call is
    /// already doing it.
    /// - Returns: false when the request failed (logged; the next trigger retries),
    ///   true when it succeeded or another call was already running.
    @discardableResult
    func ensure(because cause: String) async -> Bool {
        guard !topics.isEmpty else { return true }
        let started = running.withLock { running -> Bool in
            guard !running else { return false }
            running = true
            return true
        }
        guard started else { return true }
        defer { running.withLock { $0 = false } }
        do {
            try await create(topics)
            return true
        } catch {
            logHandler?(.warning, "could not re-create the declared topics (\(cause)): \(error)")
            return false
        }
    }

    /// ``ensure(because:)`` without waiting, for callers on librdkafka's threads.
    func ensureInBackground(because cause: String) {
        guard !topics.isEmpty else { return }
        Task.detached { await self.ensure(because: cause) }
    }
}
