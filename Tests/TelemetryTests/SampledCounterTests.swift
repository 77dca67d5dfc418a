import Testing
@testable import Telemetry

@Suite struct SampledCounterTests {
    @Test func rendersAFractionalTotalWithTheCounterType() {
        let registry = MetricsRegistry()
        registry.sampledCounter("cpu_seconds_total", help: "CPU.").record(total: 1.25)
        let text = registry.renderPrometheus()
        #expect(text.contains("# TYPE cpu_seconds_total counter\n"))
        #expect(text.contains("cpu_seconds_total 1.25\n"))
    }

    @Test func neverGoesDownAndIgnoresNonFiniteSamples() {
        let counter = MetricsRegistry().sampledCounter("bytes_total", help: "Bytes.")
        counter.record(total: 10.5)
        counter.record(total: 3)
        counter.record(total: .nan)
        counter.record(total: .infinity)
        #expect(counter.current == 10.5)
        counter.record(total: 11)
        #expect(counter.current == 11)
    }

    @Test func theSameNameAndLabelsReturnTheSameSeries() {
        let registry = MetricsRegistry()
        registry.sampledCounter("t_total", help: "T.", labels: ["a": "1"]).record(total: 2)
        #expect(registry.sampledCounter("t_total", help: "T.", labels: ["a": "1"]).current == 2)
    }
}
