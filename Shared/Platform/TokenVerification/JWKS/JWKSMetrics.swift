import Telemetry

/// The key cache's metrics: `auth_jwks_fetches_total{result}`,
/// `auth_jwks_refetches_suppressed_total` (unknown `kid`s inside the refetch
/// interval) and `auth_jwks_keys{jwks}` (usable keys per URL).
public struct JWKSMetrics: Sendable {
    let registry: MetricsRegistry
    let refetchesSuppressed: Counter

    public init(registry: MetricsRegistry) {
        self.registry = registry
        refetchesSuppressed = registry.counter(
            "auth_jwks_refetches_suppressed_total",
            help: "Tokens with an unknown kid that found a JWKS fetch started less than the refetch interval ago")
    }

    func fetches(ok: Bool) -> Counter {
        registry.counter("auth_jwks_fetches_total", help: "JWKS fetches by result", labels: ["result": ok ? "ok" : "failed"])
    }

    func keys(_ label: String) -> Gauge {
        registry.gauge("auth_jwks_keys", help: "Usable keys in the last good key set of each JWKS URL", labels: ["jwks": label])
    }
}
