import Kafka
import ServiceRuntime
import Synchronization
import Testing

/// When a producer counts as able to publish (the `/readyz` answer), from
/// statuses made by hand: no broker, no producer.
@Suite struct KafkaPublishingStatusTests {
    private let window = Duration.seconds(10)

    @Test func idleProducerWithNoFailureIsReady() {
        let status = KafkaPublishingStatus(undelivered: 0, stalledFor: nil, lastFailure: nil, rebuilds: 0)
        #expect(status.problem(window: window) == nil)
    }

    @Test func recordsWaitingShorterThanTheWindowAreReady() {
        let status = KafkaPublishingStatus(undelivered: 3, stalledFor: .seconds(9), lastFailure: nil, rebuilds: 0)
        #expect(status.problem(window: window) == nil)
    }

    @Test func recordsWaitingTheWholeWindowWithoutADeliveryAreNotReady() throws {
        let status = KafkaPublishingStatus(undelivered: 3, stalledFor: .seconds(10), lastFailure: nil, rebuilds: 0)
        let problem = try #require(status.problem(window: window))
        #expect(problem.contains("3 record(s) undelivered"), "\(problem)")
        #expect(problem.contains("10.0 s"), "\(problem)")
    }

    @Test func aRecentFailureIsNotReadyUntilTheWindowPasses() throws {
        let recent = KafkaPublishingStatus(
            undelivered: 0, stalledFor: nil, lastFailure: .init(age: .seconds(2), reason: "Message timed out"), rebuilds: 1)
        let problem = try #require(recent.problem(window: window))
        #expect(problem.contains("Message timed out"), "\(problem)")

        // Nobody may publish to an unready service: an old failure must not keep it out forever.
        let old = KafkaPublishingStatus(
            undelivered: 0, stalledFor: nil, lastFailure: .init(age: .seconds(11), reason: "Message timed out"), rebuilds: 1)
        #expect(old.problem(window: window) == nil)
    }

    /// The shape the services register: a `/readyz` check over the status.
    @Test func readinessFailsWhileTheFakeProducerCannotPublishAndRecovers() async {
        let fake = FakePublishingStatus()
        let health = HealthChecks()
        health.register("kafka-publish") { [window] in
            if let problem = fake.status.problem(window: window) { throw KafkaError(.notPublishing, reason: problem) }
        }
        #expect(await health.readiness().checks.allSatisfy(\.ok))

        fake.status = KafkaPublishingStatus(undelivered: 1, stalledFor: .seconds(12), lastFailure: nil, rebuilds: 0)
        let stalled = await health.readiness()
        #expect(stalled.checks.first?.ok == false)
        #expect(stalled.checks.first?.error?.contains("notPublishing") == true, "\(stalled)")

        // A delivery clears the stall and the failure together.
        fake.status = KafkaPublishingStatus(undelivered: 0, stalledFor: nil, lastFailure: nil, rebuilds: 1)
        #expect(await health.readiness().checks.allSatisfy(\.ok))
    }
}

/// A producer's status, set by the test.
private final class FakePublishingStatus: Sendable {
    private let storage = Mutex(KafkaPublishingStatus(undelivered: 0, stalledFor: nil, lastFailure: nil, rebuilds: 0))
    var status: KafkaPublishingStatus {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
