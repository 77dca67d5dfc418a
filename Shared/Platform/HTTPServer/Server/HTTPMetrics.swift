import Synchronization
import Telemetry

/// The server's Prometheus series, labelled by route template (never the raw path,
/// which would let clients create unbounded series).
///
/// Instances are cached per label set, keyed by the values themselves: a
/// request's lookup builds no string and takes one lock.
final class HTTPMetrics: Sendable {
    private let registry: MetricsRegistry
    private let inFlight: Gauge
    private let series = Mutex<[SeriesKey: Series]>([:])

    /// One request's labels: the route is the template the router already holds.
    private struct SeriesKey: Hashable {
        let method: HTTPMethod
        let route: String
        let status: Int
    }

    /// The counter of one label set and the histogram of its method and route.
    private struct Series {
        let counter: Counter
        let histogram: Histogram
    }

    init(registry: MetricsRegistry) {
        self.registry = registry
        inFlight = registry.gauge("http_requests_in_flight", help: "HTTP requests whose handler is running.")
    }

    func handlerStarted() { inFlight.add(1) }
    func handlerFinished() { inFlight.add(-1) }

    private static let knownMethods: Set<HTTPMethod> = [.get, .head, .post, .put, .patch, .delete, .options]

    func record(method requested: HTTPMethod, route: String, status: Int, seconds: Double) {
        let method = Self.knownMethods.contains(requested) ? requested : HTTPMethod(rawValue: "OTHER")
        let key = SeriesKey(method: method, route: route, status: status)
        let found = series.withLock { cache in
            if let cached = cache[key] { return cached }
            // The registry hands out the same histogram for the same labels, whatever the status.
            let made = Series(
                counter: registry.counter(
                    "http_requests_total", help: "HTTP requests answered.",
                    labels: ["method": method.rawValue, "route": route, "status": String(status)]),
                histogram: registry.histogram(
                    "http_request_duration_seconds", help: "Time from request line to queued response.",
                    labels: ["method": method.rawValue, "route": route]))
            cache[key] = made
            return made
        }
        found.counter.increment()
        found.histogram.observe(seconds)
    }
}
