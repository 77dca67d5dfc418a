import Foundation
import ServiceRuntime
import Telemetry

extension Router {
    /// Adds the endpoints every Storefront service has: `/healthz` (the
    /// process is alive), `/readyz` (each dependency's check; 503 naming the
    /// failing ones) and `/metrics` (Prometheus text).
    public func addOperationalRoutes(health: HealthChecks, metrics: MetricsRegistry) {
        get("/healthz") { _, _ in
            HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(LivenessReport().jsonBody()))
        }
        get("/readyz") { _, _ in
            let report = await health.readiness()
            return HTTPResponse(
                status: HTTPStatus(code: report.httpStatus), headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
                body: Array(report.jsonBody()))
        }
        get("/metrics") { _, _ in
            HTTPResponse(
                status: 200, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
                body: Array(metrics.renderPrometheus().utf8))
        }
    }
}
