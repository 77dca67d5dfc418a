import Foundation

/// A structured logger that writes one JSON object per line.
///
/// Each line carries `time`, `level`, `message`, `service`, `request_id` (when
/// the metadata has `request.id`) and the remaining metadata under `metadata`.
/// Libraries receive a logger from their caller and add metadata with
/// ``with(_:_:)``; they never build their own. Never put secrets in metadata.
public struct Logger: Sendable {
    /// Metadata key whose value is lifted to the top-level `request_id` field.
    public static let requestIDKey = "request.id"

    public let service: String
    public var minimumLevel: LogLevel
    public var metadata: [String: String]
    private let sink: any LogSink

    /// - Parameters:
    ///   - service: the service name put on every line.
    ///   - minimumLevel: lines below this level are dropped.
    ///   - sink: where lines go (standard error by default).
    public init(service: String, minimumLevel: LogLevel = .info, metadata: [String: String] = [:], sink: any LogSink = StandardErrorLogSink()) {
        self.service = service
        self.minimumLevel = minimumLevel
        self.metadata = metadata
        self.sink = sink
    }

    /// A copy of this logger with one more metadata entry (dot-notation keys, e.g. `kafka.topic`).
    public func with(_ key: String, _ value: String) -> Logger {
        var copy = self
        copy.metadata[key] = value
        return copy
    }

    public func isEnabled(_ level: LogLevel) -> Bool { level >= minimumLevel }

    /// Writes one line if `level` is enabled; `metadata` is merged over the logger's own.
    public func log(_ level: LogLevel, _ message: @autoclosure () -> String, metadata extra: [String: String] = [:]) {
        guard isEnabled(level) else { return }
        var merged = metadata
        if !extra.isEmpty { merged.merge(extra) { _, new in new } }
        sink.write(line: LogLineEncoder.encode(time: Date(), level: level, message: message(), service: service, metadata: merged))
    }

    public func trace(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) { log(.trace, message(), metadata: metadata) }
    public func debug(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) { log(.debug, message(), metadata: metadata) }
    public func info(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) { log(.info, message(), metadata: metadata) }
    public func notice(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) { log(.notice, message(), metadata: metadata) }
    public func warning(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) { log(.warning, message(), metadata: metadata) }
    public func error(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) { log(.error, message(), metadata: metadata) }
    public func critical(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) { log(.critical, message(), metadata: metadata) }
}
