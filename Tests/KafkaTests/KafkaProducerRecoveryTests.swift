import CRdKafka
import Synchronization
import Testing

@testable import Kafka

/// Producer recovery against librdkafka's in-process mock cluster
/// (`test.mock.num.brokers`): the broker's refusals are injected, no server runs.
/// Each handle gets a mock cluster of its own, so a replaced handle meets a
/// clean broker, as after a restart.
@Suite struct KafkaProducerRecoveryTests {
    /// The Kafka protocol's ApiKey of Produce requests.
    private static let produceAPIKey: Int16 = 0
    private static let topic = "recovery"

    /// Broker answers after which the handle never delivers again (every
    /// retry refused, as Tansu does after a restart): the producer must fail
    /// the caller, replace the handle and deliver the next record, reporting
    /// every record on the way (delivered or failed). INVALID_PRODUCER_EPOCH
    /// is not here: librdkafka bumps the epoch and recovers from it by itself.
    @Test(arguments: [RD_KAFKA_RESP_ERR_UNKNOWN_PRODUCER_ID, RD_KAFKA_RESP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER])
    func refusedHandleIsReplacedAndTheNextRecordIsDelivered(refusal: rd_kafka_resp_err_t) async throws {
        var client = KafkaClientConfiguration(bootstrapServers: ["127.0.0.1:1"], clientID: "recovery-tests", logHandler: nil)
        // The mock cluster creates topics on request; Storefront's producers never ask a real broker to.
        client.extraProperties = ["test.mock.num.brokers": "1", "allow.auto.create.topics": "true"]
        let reported = Mutex<[String]>([])
        var configuration = KafkaProducerConfiguration(client: client, messageTimeout: .seconds(2))
        configuration.deliveryFailureHandler = { undelivered in
            reported.withLock { $0.append(String(decoding: undelivered.message.value ?? [], as: UTF8.self)) }
        }
        let producer = try KafkaProducer(configuration: configuration)

        _ = try await producer.sendAndAwait(Self.message("first"))
        let cluster = try #require(rd_kafka_handle_mock_cluster(producer.currentClient.handle))
        var refusals = [rd_kafka_resp_err_t](repeating: refusal, count: 10_000)
        rd_kafka_mock_push_request_errors_array(cluster, Self.produceAPIKey, refusals.count, &refusals)

        // One fire-and-forget and one awaited record meet the refusing broker. Which of them
        // librdkafka fails depends on how it batches them; each must reach its caller either way.
        try producer.send(Self.message("fire-and-forget"))
        var refusedThrew = false
        do {
            _ = try await producer.sendAndAwait(Self.message("refused"))
        } catch {
            refusedThrew = true
        }

        var delivered: KafkaDeliveryReport?
        for _ in 0..<3 where delivered == nil {
            delivered = try? await producer.sendAndAwait(Self.message("after"))
        }
        #expect(delivered != nil, "no delivery after the handle was replaced")
        #expect(producer.publishingStatus.rebuilds == 1)
        #expect(producer.publishingStatus.problem(window: .seconds(10)) == nil, "\(producer.publishingStatus)")

        _ = await producer.shutdown(timeout: .seconds(2))
        let settled = ContinuousClock.now.advanced(by: .seconds(5))
        while producer.counters.delivered + producer.counters.failed < 4, ContinuousClock.now < settled {
            try await Task.sleep(for: .milliseconds(50))
        }
        let counters = producer.counters
        #expect(counters.delivered + counters.failed == 4, "every record is reported: \(counters)")
        #expect(counters.failed >= 1, "the broker's refusals failed no record: \(counters)")
        // Every failure reached its caller: the awaited one as a throw, the other through the handler.
        #expect(reported.withLock { $0 }.count + (refusedThrew ? 1 : 0) == counters.failed, "\(counters)")
    }

    private static func message(_ value: String) -> KafkaProducerMessage {
        KafkaProducerMessage(topic: topic, key: "k", value: Array(value.utf8))
    }
}
