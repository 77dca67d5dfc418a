import Testing
import Kafka

@Suite struct KafkaRuntimeTests {
    @Test func vendoredLibraryPassesTheVersionGuard() throws {
        try KafkaRuntime.checkLibraryVersion()
        let version = KafkaRuntime.libraryVersionComponents
        #expect(version >= (2, 2, 0), "loaded librdkafka \(KafkaRuntime.libraryVersion)")
    }
}
