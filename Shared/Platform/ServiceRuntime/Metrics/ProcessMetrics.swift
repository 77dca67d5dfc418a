import Foundation
import Telemetry

/// Standard Prometheus process metrics read from Linux `/proc` on each scrape.
///
/// Registers gauges and an `onCollect` hook that refreshes them:
/// `process_resident_memory_bytes`, `process_virtual_memory_bytes`,
/// `process_open_fds`, `process_start_time_seconds`,
/// `process_uptime_seconds` and `process_cpu_seconds_total`. The last one is
/// a counter, as in other Prometheus clients: a ``SampledCounter``, since the
/// kernel reports the total in fractional seconds rather than increments.
/// Where a file cannot be read (not Linux), that metric keeps its last value.
public enum ProcessMetrics {
    /// Registers the process metrics into `registry`. Call once per registry.
    /// - Parameters:
    ///   - registry: where the gauges are registered.
    ///   - procRoot: the proc file system; `/proc` except in tests.
    public static func register(into registry: MetricsRegistry, procRoot: String = "/proc") {
        let proc = ProcFileSystem(root: procRoot)
        let resident = registry.gauge("process_resident_memory_bytes", help: "Resident memory size in bytes.")
        let virtual = registry.gauge("process_virtual_memory_bytes", help: "Virtual memory size in bytes.")
        let openFDs = registry.gauge("process_open_fds", help: "Number of open file descriptors.")
        let startTime = registry.gauge("process_start_time_seconds", help: "Start time of the process since unix epoch in seconds.")
        let uptime = registry.gauge("process_uptime_seconds", help: "Seconds since the process started.")
        let cpu = registry.sampledCounter("process_cpu_seconds_total", help: "Total user and system CPU time spent in seconds.")

        // The start time never changes; read it once. If /proc has no answer,
        // fall back to now, which is close for a service registering at start.
        let started = proc.processTimes()?.startTimeSeconds ?? Date().timeIntervalSince1970
        startTime.set(started)

        registry.onCollect {
            if let value = proc.residentMemoryBytes() { resident.set(value) }
            if let value = proc.virtualMemoryBytes() { virtual.set(value) }
            if let value = proc.openFileDescriptors() { openFDs.set(value) }
            if let times = proc.processTimes() { cpu.record(total: times.cpuSeconds) }
            uptime.set(max(0, Date().timeIntervalSince1970 - started))
        }
    }
}
