/// Severity of a librdkafka log line, in syslog order: a smaller raw value is
/// more severe.
public enum KafkaLogLevel: Int, Sendable, Comparable, CustomStringConvertible {
    case emergency = 0, alert, critical, error, warning, notice, info, debug

    /// Maps librdkafka's syslog level; anything out of range counts as debug.
    init(syslogLevel: Int32) {
        self = KafkaLogLevel(rawValue: Int(syslogLevel)) ?? .debug
    }

    public static func < (lhs: KafkaLogLevel, rhs: KafkaLogLevel) -> Bool {
        // "Less" means less severe, so `level >= .warning` reads naturally.
        lhs.rawValue > rhs.rawValue
    }

    public var description: String {
        switch self {
        case .emergency: "emergency"
        case .alert: "alert"
        case .critical: "critical"
        case .error: "error"
        case .warning: "warning"
        case .notice: "notice"
        case .info: "info"
        case .debug: "debug"
        }
    }
}

/// Receives librdkafka's log lines. It runs on librdkafka's own threads, so it
/// must be quick and must not block.
public typealias KafkaLogHandler = @Sendable (KafkaLogLevel, String) -> Void
