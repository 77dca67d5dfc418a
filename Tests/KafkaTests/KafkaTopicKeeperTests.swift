import Synchronization
import Testing

@testable import Kafka

/// The keeper's rules over a fake `create`: no broker.
@Suite struct KafkaTopicKeeperTests {
    private let topics = [KafkaTopicSpecification(name: "t", partitions: 6, config: ["retention.ms": "1000"])]

    @Test func createsTheDeclaredTopicsAsDeclared() async {
        let calls = Calls()
        let keeper = KafkaTopicKeeper(topics: topics, logHandler: nil) { calls.record($0) }
        #expect(await keeper.ensure(because: "test"))
        #expect(calls.batches == [topics])
    }

    @Test func reportsAFailedRequestAndTriesAgainNextTime() async {
        let calls = Calls()
        let failures = Mutex(1)
        let keeper = KafkaTopicKeeper(topics: topics, logHandler: nil) { specifications in
            calls.record(specifications)
            if failures.withLock({ remaining -> Bool in
                defer { remaining -= 1 }
                return remaining > 0
            }) {
                throw KafkaError(.adminRequestFailed, reason: "broker down")
            }
        }
        #expect(await keeper.ensure(because: "first") == false)
        #expect(await keeper.ensure(because: "second"))
        #expect(calls.batches.count == 2)
    }

    @Test func concurrentTriggersShareOneRequest() async {
        let calls = Calls()
        let gate = AsyncStream<Void>.makeStream()
        let keeper = KafkaTopicKeeper(topics: topics, logHandler: nil) { specifications in
            calls.record(specifications)
            for await _ in gate.stream { break }
        }
        let first = Task { await keeper.ensure(because: "first") }
        while calls.batches.isEmpty { await Task.yield() }
        // While the first request is in flight, another trigger does not send a second.
        #expect(await keeper.ensure(because: "second"))
        gate.continuation.yield()
        #expect(await first.value)
        #expect(calls.batches.count == 1)
    }

    @Test func nothingDeclaredMeansNothingCreated() async {
        let calls = Calls()
        let keeper = KafkaTopicKeeper(topics: [], logHandler: nil) { calls.record($0) }
        #expect(await keeper.ensure(because: "test"))
        #expect(calls.batches.isEmpty)
    }
}

/// What `create` was asked for, in order.
private final class Calls: Sendable {
    private let storage = Mutex<[[KafkaTopicSpecification]]>([])
    var batches: [[KafkaTopicSpecification]] { storage.withLock { $0 } }
    func record(_ specifications: [KafkaTopicSpecification]) { storage.withLock { $0.append(specifications) } }
}
