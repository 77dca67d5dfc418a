import CRdKafka
import Foundation
import Synchronization
import Testing

@testable import Kafka

/// What `send(_:onDelivery:)` callbacks were told, by message, with the thread
/// each ran on and whether it ran in a Swift task.
final class DeliveryLog: Sendable {
    struct Entry: Sendable {
        var result: Result<KafkaDeliveryReport, KafkaError>
        var thread: pthread_t
        var inTask: Bool
    }

    private let entries = Mutex<[String: [Entry]]>([:])

    /// The callback for the message called `name`.
    func callback(_ name: String) -> @Sendable (Result<KafkaDeliveryReport, KafkaError>) -> Void {
        { result in
            let entry = Entry(result: result, thread: pthread_self(), inTask: withUnsafeCurrentTask { $0 != nil })
            self.entries.withLock { $0[name, default: []].append(entry) }
        }
    }

    func calls(_ name: String) -> [Entry] { entries.withLock { $0[name] ?? [] } }
    var total: Int { entries.withLock { $0.values.reduce(0) { $0 + $1.count } } }

    /// Waits (polling) until `count` callbacks ran in all, or `timeout` passed.
    func wait(for count: Int, timeout: Duration = .seconds(20)) async throws {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while total < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
    }
}

/// `KafkaProducer.send(_:onDelivery:)` without a server: librdkafka's mock
/// cluster, or a broker address nobody listens on.
@Suite struct KafkaCallbackSendTests {
    private static let produceAPIKey: Int16 = 0

    private static func message(_ value: String, topic: String = "callbacks") -> KafkaProducerMessage {
        KafkaProducerMessage(topic: topic, key: "k", value: Array(value.utf8))
    }

    private static func mockProducer(messageTimeout: Duration = .seconds(2)) throws -> KafkaProducer {
        var client = KafkaClientConfiguration(bootstrapServers: ["127.0.0.1:1"], clientID: "callback-tests", logHandler: nil)
        client.extraProperties = ["test.mock.num.brokers": "1", "allow.auto.create.topics": "true"]
        return try KafkaProducer(configuration: KafkaProducerConfiguration(client: client, messageTimeout: messageTimeout))
    }

    /// Nothing listens on port 1: messages wait in the local queue.
    private static func unreachableProducer(
        maxQueuedMessages: Int = 100_000, queueFullTimeout: Duration = .milliseconds(100), messageTimeout: Duration = .seconds(30)
    ) throws -> KafkaProducer {
        try KafkaProducer(
            configuration: KafkaProducerConfiguration(
                client: KafkaClientConfiguration(bootstrapServers: ["127.0.0.1:1"], clientID: "callback-tests", logHandler: nil),
                messageTimeout: messageTimeout, maxQueuedMessages: maxQueuedMessages, queueFullTimeout: queueFullTimeout))
    }

    @Test func deliveryReportsReachTheirCallbacksOnThePollThreadOnceEach() async throws {
        let producer = try Self.mockProducer()
        let log = DeliveryLog()
        let sender = pthread_self()
        for index in 0..<20 { producer.send(Self.message("m\(index)"), onDelivery: log.callback("m\(index)")) }
        try await log.wait(for: 20)
        var offsets: [Int64] = []
        for index in 0..<20 {
            let calls = log.calls("m\(index)")
            try #require(calls.count == 1, "m\(index) was told \(calls.count) times")
            offsets.append(try calls[0].result.get().offset)
            // On the poll thread: neither the sender's nor in a Swift task.
            #expect(calls[0].thread != sender && !calls[0].inTask)
        }
        #expect(Set(offsets).count == 20, "\(offsets)")
        #expect(producer.counters.delivered == 20)
        await producer.shutdown(timeout: .seconds(2))
        #expect(log.total == 20, "shutdown told nobody twice")
    }

    /// The broker refusing every record from now on (as Tansu does after a
    /// restart): the callback hears the failure, the handle is replaced as
    /// after an awaited send, and the next callback send is delivered.
    @Test func aRefusedRecordFailsItsCallbackAndTheHandleIsReplaced() async throws {
        let producer = try Self.mockProducer()
        _ = try await producer.sendAndAwait(Self.message("first"))
        let cluster = try #require(rd_kafka_handle_mock_cluster(producer.currentClient.handle))
        var refusals = [rd_kafka_resp_err_t](repeating: RD_KAFKA_RESP_ERR_UNKNOWN_PRODUCER_ID, count: 10_000)
        rd_kafka_mock_push_request_errors_array(cluster, Self.produceAPIKey, refusals.count, &refusals)

        let log = DeliveryLog()
        producer.send(Self.message("refused"), onDelivery: log.callback("refused"))
        try await log.wait(for: 1)
        let refused = try #require(log.calls("refused").first)
        #expect(throws: KafkaError.self) { try refused.result.get() }

        var delivered = false
        for attempt in 0..<3 where !delivered {
            producer.send(Self.message("after"), onDelivery: log.callback("after\(attempt)"))
            try await log.wait(for: 2 + attempt)
            delivered = (try? log.calls("after\(attempt)").first?.result.get()) != nil
        }
        #expect(delivered, "no delivery after the handle was replaced")
        #expect(producer.publishingStatus.rebuilds == 1)
        await producer.shutdown(timeout: .seconds(2))
        #expect(log.calls("refused").count == 1)
    }

    /// On an HTTP thread a full queue must not be waited out: the callback
    /// hears `queueFull` before `send` returns, far inside `queueFullTimeout`.
    @Test func aFullQueueFailsAtOnceOnTheCallersThread() async throws {
        let producer = try Self.unreachableProducer(maxQueuedMessages: 1, queueFullTimeout: .seconds(5))
        let log = DeliveryLog()
        producer.send(Self.message("queued"), onDelivery: log.callback("queued"))
        let before = ContinuousClock.now
        producer.send(Self.message("refused"), onDelivery: log.callback("refused"))
        let elapsed = ContinuousClock.now - before
        let refused = try #require(log.calls("refused").first, "not told before send returned")
        #expect(refused.thread == pthread_self(), "told on the caller's thread")
        #expect(elapsed < .seconds(4), "waited \(elapsed) for room (the queue-full timeout is 5 s)")
        #expect(throws: KafkaError.self) { try refused.result.get() }
        if case .failure(let error) = refused.result { #expect(error.code == .queueFull) }
        #expect(log.calls("queued").isEmpty, "the queued message has no report yet")

        // Shutdown purges the queued one: its callback is told, once.
        await producer.shutdown(timeout: .zero)
        try await log.wait(for: 2, timeout: .seconds(5))
        let queued = log.calls("queued")
        #expect(queued.count == 1)
        #expect(throws: KafkaError.self) { try queued.first?.result.get() }
        #expect(log.calls("refused").count == 1)
    }

    @Test func aSendAfterShutdownIsToldAtOnce() async throws {
        let producer = try Self.unreachableProducer()
        await producer.shutdown(timeout: .zero)
        let log = DeliveryLog()
        producer.send(Self.message("late"), onDelivery: log.callback("late"))
        let late = try #require(log.calls("late").first, "not told before send returned")
        if case .failure(let error) = late.result { #expect(error.code == .shutDown) } else { Issue.record("delivered after shutdown") }
    }
}
