import Foundation
@testable import Telemetry
import Testing

@Suite struct MetricsRegistryTests {
    @Test func sameNameAndLabelsReturnTheSameSeries() {
        let registry = MetricsRegistry()
        registry.counter("requests_total", help: "Requests.", labels: ["route": "/a"]).increment()
        registry.counter("requests_total", help: "Requests.", labels: ["route": "/a"]).increment(by: 2)
        registry.counter("requests_total", help: "Requests.", labels: ["route": "/b"]).increment()
        let text = registry.renderPrometheus()
        #expect(text.contains("requests_total{route=\"/a\"} 3\n"))
        #expect(text.contains("requests_total{route=\"/b\"} 1\n"))
        #expect(text.components(separatedBy: "# TYPE requests_total counter").count == 2)
    }

    @Test func rendersCumulativeHistogramBuckets() {
        let registry = MetricsRegistry()
        let histogram = registry.histogram("latency_seconds", help: "Latency.", buckets: [0.1, 1])
        histogram.observe(0.05)
        histogram.observe(0.5)
        histogram.observe(5)
        let text = registry.renderPrometheus()
        #expect(text.contains("latency_seconds_bucket{le=\"0.1\"} 1\n"))
        #expect(text.contains("latency_seconds_bucket{le=\"1\"} 2\n"))
        #expect(text.contains("latency_seconds_bucket{le=\"+Inf\"} 3\n"))
        #expect(text.contains("latency_seconds_sum 5.55\n"))
        #expect(text.contains("latency_seconds_count 3\n"))
    }

    @Test func escapesLabelValuesAndRunsCollectors() {
        let registry = MetricsRegistry()
        let gauge = registry.gauge("lag", help: "Lag.", labels: ["topic": "a\"b\\c\nd"])
        registry.onCollect { gauge.set(42) }
        let text = registry.renderPrometheus()
        #expect(text.contains("lag{topic=\"a\\\"b\\\\c\\nd\"} 42\n"))
    }

    @Test func everyLineIsValidExpositionSyntax() {
        let registry = MetricsRegistry()
        registry.counter("a_total", help: "A.", labels: ["x": "1"]).increment()
        registry.gauge("b", help: "B.").set(1.5)
        registry.histogram("c_seconds", help: "C.").observe(0.2)
        let sample = #/^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? [-+0-9.eEInfNa]+$/#
        for line in registry.renderPrometheus().split(separator: "\n") where !line.hasPrefix("#") {
            #expect(line.wholeMatch(of: sample) != nil, "invalid sample line: \(line)")
        }
    }
}
