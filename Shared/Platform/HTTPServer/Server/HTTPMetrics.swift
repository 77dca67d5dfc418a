import Synchronization
import Telemetry

/// The server's Prometheus series, labelled by route template (never the raw path,
/// which would let clients create unbounded series).
///
/// Instances are cached per label set so the hot path does one dictionary lookup.
final class HTTPMetrics: Sendable {
    private let registry: MetricsRegistry
    private let inFlight: Gauge
    private let counters = Mutex<[String: Counter]>([:])
    private let histograms = Mutex<[String: Histogram]>([:])

    init(registry: MetricsRegistry) {
        self.registry = registry
        inFlight = registry.gauge("http_requests_in_flight", help: "HTTP requests whose handler is running.")
    }

    func handlerStarted() { inFlight.add(1) }
    func handlerFinished() { inFlight.add(-1) }

    /// Methods reported by name; any other token a client invents is reported as `OTHER`.
    private static let knownMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    func record(method requested: HTTPMethod, route: String, status: Int, seconds: Double) {
        let method = Self.knownMethods.contains(requested.rawValue) ? requested : HTTPMethod(rawValue: "OTHER")
        let counterKey = method.rawValue + " " + route + " " + String(status)
        let counter = counters.withLock { cache in
            if let cached = cache[counterKey] { return cached }
            let made = registry.counter(
                "http_requests_total", help: "HTTP requests answered.",
                labels: ["method": method.rawValue, "route": route, "status": String(status)])
            cache[counterKey] = made
            return made
        }
        counter.increment()
        let histogramKey = method.rawValue + " " + route
        let histogram = histograms.withLock { cache in
            if let cached = cache[histogramKey] { return cached }
            let made = registry.histogram(
                "http_request_duration_seconds", help: "Time from request line to queued response.",
                labels: ["method": method.rawValue, "route": route])
            cache[histogramKey] = made
            return made
        }
        histogram.observe(seconds)
    }
}
