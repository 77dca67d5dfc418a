import Testing
@testable import Kafka
@Test func placeholder() { #expect(Bool(true)) }
