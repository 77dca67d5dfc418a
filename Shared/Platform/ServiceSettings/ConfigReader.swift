import Foundation

/// Reads a service's configuration from environment variables and collects
/// every problem instead of stopping at the first.
///
/// ```swift
/// var reader = ConfigReader(environment)
/// let port = reader.int("PORT", default: 8081, in: 1...65535)
/// let database = reader.required.url("DATABASE_URL")
/// let jwtSecret = reader.required.secret("AUTH_JWT_SECRET")
/// try reader.finish()   // throws ConfigurationError listing every problem
/// ```
///
/// Reads never fail on their own: an invalid optional value yields its
/// default, and a missing or invalid required value yields a placeholder.
/// Both record a ``ConfigurationProblem``, and ``finish()`` throws if there
/// is any, so placeholders never escape a reader that is finished.
/// ``load(_:_:)`` calls `finish()` for you.
public struct ConfigReader: Sendable {
    /// The variables being read.
    public let environment: Environment
    /// Problems found so far, in the order the variables were read.
    public private(set) var problems: [ConfigurationProblem] = []

    /// Longest part of a bad value echoed back in an error message.
    static let maximumEchoedLength = 64

    /// - Parameter environment: the variables; the process environment by default.
    public init(_ environment: Environment = Environment()) {
        self.environment = environment
    }

    /// Reads a configuration with `build` and throws every problem found.
    ///
    /// - Parameters:
    ///   - environment: the variables; the process environment by default.
    ///   - build: reads each variable from the reader and assembles the configuration.
    /// - Throws: ``ConfigurationError`` when any variable was missing or invalid.
    public static func load<Configuration>(
        _ environment: Environment = Environment(),
        _ build: (inout ConfigReader) -> Configuration
    ) throws(ConfigurationError) -> Configuration {
        var reader = ConfigReader(environment)
        let configuration = build(&reader)
        try reader.finish()
        return configuration
    }

    /// Throws if any variable read so far was missing or invalid.
    ///
    /// - Throws: ``ConfigurationError`` listing every problem.
    public func finish() throws(ConfigurationError) {
        if !problems.isEmpty { throw ConfigurationError(problems: problems) }
    }

    /// Records a problem found by the service itself, e.g. two values that
    /// contradict each other, so it is reported with the rest.
    public mutating func report(_ variable: String, _ message: String) {
        problems.append(ConfigurationProblem(variable: variable, message: message))
    }

    /// Reads values that must be set; each read records "required but not
    /// set" when the variable is missing.
    public var required: RequiredConfigValues {
        get { RequiredConfigValues(reader: self) }
        set { self = newValue.reader }
    }

    // MARK: - Lookup

    enum Lookup<Value> {
        case unset, invalid, value(Value)
    }

    mutating func lookup<Value>(_ name: String, _ parser: ConfigValueParser<Value>) -> Lookup<Value> {
        guard let text = environment[name] else { return .unset }
        guard let value = parser.parse(text) else {
            report(name, "expected \(parser.expected), got \(Self.echo(text))")
            return .invalid
        }
        return .value(value)
    }

    /// Quotes a bad value for an error message: bounded in length, control
    /// characters escaped, and URL credentials (`://user:password@`) hidden
    /// because a mistyped database URL still carries its password.
    static func echo(_ text: String) -> String {
        var shown = ""
        for scalar in redactingCredentials(text).unicodeScalars {
            switch scalar {
            case "\"": shown += "\\\""
            case "\\": shown += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: shown += "\\u{\(String(scalar.value, radix: 16))}"
            default: shown.unicodeScalars.append(scalar)
            }
        }
        if shown.count > maximumEchoedLength { shown = String(shown.prefix(maximumEchoedLength)) + "…" }
        return "\"\(shown)\""
    }

    /// `text` with any URL user info replaced, for messages that echo connection strings.
    public static func redactingCredentials(_ text: String) -> String {
        guard let schemeEnd = text.range(of: "://") else { return text }
        let authorityEnd = text[schemeEnd.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
        guard let at = text[schemeEnd.upperBound..<authorityEnd].lastIndex(of: "@") else { return text }
        return String(text[..<schemeEnd.upperBound]) + "<redacted>" + String(text[at...])
    }
}

// MARK: - Optional values

extension ConfigReader {
    /// The value of `name` parsed with `parser`, or `nil` when unset or invalid
    /// (invalid values are recorded as problems).
    public mutating func value<Value>(_ name: String, _ parser: ConfigValueParser<Value>) -> Value? {
        if case .value(let value) = lookup(name, parser) { return value }
        return nil
    }

    /// The value of `name` parsed with `parser`, or `defaultValue` when unset
    /// or invalid (invalid values are recorded as problems).
    public mutating func value<Value>(_ name: String, _ parser: ConfigValueParser<Value>, default defaultValue: Value) -> Value {
        value(name, parser) ?? defaultValue
    }

    public mutating func string(_ name: String) -> String? { value(name, .string) }
    public mutating func string(_ name: String, default defaultValue: String) -> String { value(name, .string, default: defaultValue) }

    public mutating func int(_ name: String, in range: ClosedRange<Int>? = nil) -> Int? { value(name, .int(in: range)) }
    public mutating func int(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>? = nil) -> Int {
        value(name, .int(in: range), default: defaultValue)
    }

    public mutating func double(_ name: String) -> Double? { value(name, .double) }
    public mutating func double(_ name: String, default defaultValue: Double) -> Double { value(name, .double, default: defaultValue) }

    /// Accepts `true/false/1/0/yes/no`, in any case.
    public mutating func bool(_ name: String) -> Bool? { value(name, .bool) }
    public mutating func bool(_ name: String, default defaultValue: Bool) -> Bool { value(name, .bool, default: defaultValue) }

    public mutating func url(_ name: String) -> URL? { value(name, .url) }
    public mutating func url(_ name: String, default defaultValue: URL) -> URL { value(name, .url, default: defaultValue) }

    /// Accepts plain seconds (`30`, `1.5`) or `250ms`, `30s`, `5m`, `1h`.
    public mutating func duration(_ name: String) -> Duration? { value(name, .duration) }
    public mutating func duration(_ name: String, default defaultValue: Duration) -> Duration { value(name, .duration, default: defaultValue) }

    /// One of the cases of an enum whose raw values are strings.
    public mutating func enumeration<E: RawRepresentable & CaseIterable>(_ name: String, as type: E.Type = E.self) -> E? where E.RawValue == String {
        value(name, .oneOf(type))
    }
    public mutating func enumeration<E: RawRepresentable & CaseIterable>(_ name: String, default defaultValue: E) -> E where E.RawValue == String {
        value(name, .oneOf(E.self), default: defaultValue)
    }

    /// Comma-separated strings, trimmed, empty items dropped.
    public mutating func list(_ name: String) -> [String]? { value(name, .list(of: .string)) }
    public mutating func list(_ name: String, default defaultValue: [String]) -> [String] {
        value(name, .list(of: .string), default: defaultValue)
    }
}
