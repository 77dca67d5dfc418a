import Synchronization

/// Holds every metric of a process and renders them as Prometheus text.
///
/// Asking twice for the same name and labels returns the same instance, so
/// callers may look metrics up on the hot path or keep them in properties.
/// Labels must have bounded values (route templates, never raw paths).
public final class MetricsRegistry: Sendable {
    enum Kind: String { case counter, gauge, histogram }

    enum Instance {
        case counter(Counter), sampledCounter(SampledCounter), gauge(Gauge), histogram(Histogram)
    }

    struct Family {
        let kind: Kind
        let help: String
        var children: [Labels: Instance] = [:]
    }

    /// Label pairs sorted by name, so the same set always maps to one series.
    struct Labels: Hashable {
        let pairs: [(String, String)]
        init(_ dictionary: [String: String]) { pairs = dictionary.sorted { $0.key < $1.key } }
        static func == (lhs: Labels, rhs: Labels) -> Bool { lhs.pairs.elementsEqual(rhs.pairs) { $0 == $1 } }
        func hash(into hasher: inout Hasher) {
            for (name, value) in pairs { hasher.combine(name); hasher.combine(value) }
        }
    }

    private let families = Mutex<[String: Family]>([:])
    private let collectors = Mutex<[@Sendable () -> Void]>([])

    public init() {}

    public func counter(_ name: String, help: String, labels: [String: String] = [:]) -> Counter {
        let instance = instance(name, .counter, help, labels) { .counter(Counter()) }
        guard case .counter(let counter) = instance else { preconditionFailure("\(name) is not a counter") }
        return counter
    }

    /// A counter exposed with the `counter` type whose total is sampled from
    /// a source (see ``SampledCounter``), for figures such as CPU seconds that
    /// are monotonic but not whole increments.
    public func sampledCounter(_ name: String, help: String, labels: [String: String] = [:]) -> SampledCounter {
        let instance = instance(name, .counter, help, labels) { .sampledCounter(SampledCounter()) }
        guard case .sampledCounter(let counter) = instance else { preconditionFailure("\(name) is not a sampled counter") }
        return counter
    }

    public func gauge(_ name: String, help: String, labels: [String: String] = [:]) -> Gauge {
        let instance = instance(name, .gauge, help, labels) { .gauge(Gauge()) }
        guard case .gauge(let gauge) = instance else { preconditionFailure("\(name) is not a gauge") }
        return gauge
    }

    public func histogram(
        _ name: String, help: String, labels: [String: String] = [:], buckets: [Double] = Histogram.defaultLatencyBuckets
    ) -> Histogram {
        let instance = instance(name, .histogram, help, labels) { .histogram(Histogram(buckets: buckets)) }
        guard case .histogram(let histogram) = instance else { preconditionFailure("\(name) is not a histogram") }
        return histogram
    }

    /// Registers work that refreshes gauges just before each render (process
    /// memory, consumer lag), so values are current when scraped.
    public func onCollect(_ collector: @escaping @Sendable () -> Void) {
        collectors.withLock { $0.append(collector) }
    }

    private func instance(_ name: String, _ kind: Kind, _ help: String, _ labels: [String: String], make: () -> Instance) -> Instance {
        families.withLock { families in
            var family = families[name] ?? Family(kind: kind, help: help)
            precondition(family.kind == kind, "metric \(name) registered as \(family.kind) and \(kind)")
            let key = Labels(labels)
            if let existing = family.children[key] { return existing }
            let created = make()
            family.children[key] = created
            families[name] = family
            return created
        }
    }

    /// Prometheus text exposition format 0.0.4, families sorted by name.
    public func renderPrometheus() -> String {
        for collect in collectors.withLock({ $0 }) { collect() }
        let snapshot = families.withLock { $0 }
        var out = ""
        for name in snapshot.keys.sorted() {
            let family = snapshot[name]!
            out += "# HELP \(name) \(PrometheusText.escapeHelp(family.help))\n# TYPE \(name) \(family.kind.rawValue)\n"
            let series = family.children.sorted { PrometheusText.labelText($0.key.pairs) < PrometheusText.labelText($1.key.pairs) }
            for (labels, instance) in series {
                switch instance {
                case .counter(let counter):
                    out += "\(name)\(PrometheusText.labelText(labels.pairs)) \(counter.current)\n"
                case .sampledCounter(let counter):
                    out += "\(name)\(PrometheusText.labelText(labels.pairs)) \(PrometheusText.number(counter.current))\n"
                case .gauge(let gauge):
                    out += "\(name)\(PrometheusText.labelText(labels.pairs)) \(PrometheusText.number(gauge.current))\n"
                case .histogram(let histogram):
                    out += PrometheusText.histogramLines(name: name, labels: labels.pairs, histogram: histogram)
                }
            }
        }
        return out
    }
}
