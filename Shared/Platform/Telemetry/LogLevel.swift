/// Severity of a log line, ordered from most to least verbose.
public enum LogLevel: String, Sendable, Comparable, CaseIterable, Codable {
    case trace, debug, info, notice, warning, error, critical

    private var rank: Int { Self.allCases.firstIndex(of: self)! }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rank < rhs.rank }

    /// Parses a level name case-insensitively (`"INFO"`, `"warn"` is accepted for `warning`).
    public init?(name: String) {
        let lowered = name.lowercased()
        if lowered == "warn" { self = .warning; return }
        guard let level = LogLevel(rawValue: lowered) else { return nil }
        self = level
    }
}
