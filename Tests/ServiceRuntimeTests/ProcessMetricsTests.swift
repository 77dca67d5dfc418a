import Foundation
import Testing
import Telemetry
@testable import ServiceRuntime

@Suite struct ProcessMetricsTests {
    /// The value of the unlabelled sample `name` in Prometheus text.
    func sample(_ name: String, in text: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1))
        }
        return nil
    }

    @Test func processMetricsArePresentAndPlausible() throws {
        let registry = MetricsRegistry()
        ProcessMetrics.register(into: registry)
        let text = registry.renderPrometheus()
        let now = Date().timeIntervalSince1970

        let resident = try #require(sample("process_resident_memory_bytes", in: text))
        #expect(resident > 1_000_000, "a Swift test process uses more than 1 MB")
        let virtual = try #require(sample("process_virtual_memory_bytes", in: text))
        #expect(virtual >= resident)
        #expect(try #require(sample("process_open_fds", in: text)) >= 3)
        let start = try #require(sample("process_start_time_seconds", in: text))
        #expect(start > 1_500_000_000 && start <= now + 1)
        let uptime = try #require(sample("process_uptime_seconds", in: text))
        #expect(uptime >= 0 && abs((now - start) - uptime) < 5)
        #expect(try #require(sample("process_cpu_seconds_total", in: text)) > 0)
        // A `_total` name is a counter's; promtool flags it on any other type.
        #expect(text.contains("# TYPE process_cpu_seconds_total counter\n"))
    }

    @Test func openFileDescriptorsFollowTheProcess() throws {
        let registry = MetricsRegistry()
        ProcessMetrics.register(into: registry)
        let before = try #require(sample("process_open_fds", in: registry.renderPrometheus()))
        let pipes = (0..<8).map { _ in Pipe() }
        let during = try #require(sample("process_open_fds", in: registry.renderPrometheus()))
        withExtendedLifetime(pipes) {}
        // Other suites open and close descriptors concurrently, so only check
        // that 16 new descriptors are visible within a generous margin.
        #expect(during >= before + 16 - 8)
    }

    @Test func renderedTextPassesLineSyntaxCheck() {
        let registry = MetricsRegistry()
        ProcessMetrics.register(into: registry)
        let sampleLine =
            #/^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? [-+]?([0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?|Inf|NaN)$/#
        let help = #/^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*$/#
        let type = #/^# TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (counter|gauge|histogram|summary|untyped)$/#
        let text = registry.renderPrometheus()
        #expect(text.hasSuffix("\n"))
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            let valid = line.wholeMatch(of: sampleLine) != nil || line.wholeMatch(of: help) != nil || line.wholeMatch(of: type) != nil
            #expect(valid, "invalid exposition line: \(line)")
        }
    }

    @Test func parsesStatWithSpacesAndParenthesesInTheCommand() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("proc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("self"), withIntermediateDirectories: true)
        // Fields 3...22 after the command: utime=200 stime=100 starttime=500 ticks.
        let stat = "42 (odd) name) S 1 1 1 0 -1 0 0 0 0 0 200 100 0 0 20 0 1 0 500 0 0\n"
        try Data(stat.utf8).write(to: root.appendingPathComponent("self/stat"))
        try Data("cpu 1 2 3\nbtime 1700000000\n".utf8).write(to: root.appendingPathComponent("stat"))
        let times = try #require(ProcFileSystem(root: root.path).processTimes())
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        #expect(times.cpuSeconds == 300 / ticks)
        #expect(times.startTimeSeconds == 1_700_000_000 + 500 / ticks)
    }
}
