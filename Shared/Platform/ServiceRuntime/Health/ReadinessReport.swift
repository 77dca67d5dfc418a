import Timing
import Foundation

/// The result of running every readiness check once.
///
/// Encodes as `{"status":"ok","checks":[…]}` or
/// `{"status":"unavailable","failing":["postgres"],"checks":[…]}`; serve it
/// with ``httpStatus`` (200 or 503).
public struct ReadinessReport: Sendable, Equatable, Encodable {
    /// One check's result.
    public struct CheckResult: Sendable, Equatable, Encodable {
        /// The name the check was registered under.
        public let name: String
        /// Whether it finished without throwing within its timeout.
        public let ok: Bool
        /// A short, single-line reason when it failed (URL credentials removed).
        public let error: String?
        /// How long the check ran (up to its timeout).
        public let duration: Duration

        public init(name: String, ok: Bool, error: String?, duration: Duration) {
            self.name = name
            self.ok = ok
            self.error = error
            self.duration = duration
        }

        private enum CodingKeys: String, CodingKey { case name, ok, error, durationSeconds = "duration_seconds" }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(ok, forKey: .ok)
            try container.encodeIfPresent(error, forKey: .error)
            try container.encode(duration.inSeconds, forKey: .durationSeconds)
        }
    }

    /// Results in registration order.
    public let checks: [CheckResult]

    public init(checks: [CheckResult]) {
        self.checks = checks
    }

    /// Whether every check passed (true when there are none).
    public var ok: Bool { checks.allSatisfy(\.ok) }
    /// Names of the checks that failed, in registration order.
    public var failing: [String] { checks.filter { !$0.ok }.map(\.name) }
    /// `ok` or `unavailable`.
    public var status: String { ok ? "ok" : "unavailable" }
    /// The HTTP status to answer `/readyz` with: 200 or 503.
    public var httpStatus: Int { ok ? 200 : 503 }

    private enum CodingKeys: String, CodingKey { case status, failing, checks }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status, forKey: .status)
        if !ok { try container.encode(failing, forKey: .failing) }
        try container.encode(checks, forKey: .checks)
    }

    /// The JSON body for `/readyz`, keys sorted.
    public func jsonBody() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding strings, bools and finite numbers cannot fail.
        return (try? encoder.encode(self)) ?? Data(#"{"status":"unavailable"}"#.utf8)
    }
}

/// The answer to a liveness probe: the process is running and responsive.
public struct LivenessReport: Sendable, Equatable, Encodable {
    /// Always `ok`: being able to answer is the liveness signal.
    public let status = "ok"

    public init() {}

    /// The HTTP status to answer `/healthz` with: always 200.
    public var httpStatus: Int { 200 }

    /// `{"status":"ok"}`.
    public func jsonBody() -> Data { Data(#"{"status":"ok"}"#.utf8) }
}
