import Foundation

/// Reads a service's configuration from environment variables and collects
/// every problem instead of stopping at the first.
///
/// ```swift
/// var reader = ConfigReader(environment, declared: CheckoutBinary.settings)
/// let port = reader.int(.port, default: 8081, in: 1...65535)
/// let database = reader.required.url(.databaseURL)
/// let jwtSecret = reader.required.secret(.ownershipProofKey)
/// try reader.finish()   // throws ConfigurationError listing every problem
/// ```
///
/// Every read names a ``Setting`` declaration, never a bare string, so a
/// variable cannot be read without being declared (and documented). A reader
/// made with `declared:` also refuses a setting missing from that binary's
/// list, as a problem like any other, so `--help-settings` cannot leave out
/// what the binary really reads.
///
/// Reads never fail on their own: an invalid optional value yields its
/// default, and a missing or invalid required value yields a placeholder.
/// Both record a ``ConfigurationProblem``, and ``finish()`` throws if there
/// is any, so placeholders never escape a reader that is finished.
/// ``load(_:_:)`` calls `finish()` for you.
public struct ConfigReader: Sendable {
    /// The variables being read. Not public: every read names a ``Setting``.
    let environment: Environment
    /// Problems found so far, in the order the variables were read.
    public private(set) var problems: [ConfigurationProblem] = []

    /// Settings read with a default other than the one their declaration
    /// shows (where the shown default parses as a value): the declaration is
    /// out of date. Read by SettingsDocsTests, never at run time.
    var defaultMismatches: [String] = []
    /// How many declared defaults were compared with the code's, so a test
    /// of ``defaultMismatches`` can tell that it compared anything.
    var comparedDefaults = 0

    /// Longest part of a bad value echoed back in an error message.
    static let maximumEchoedLength = 64

    /// The names this binary declared; nil accepts every declared ``Setting``
    /// (tests, and readers built for one configuration type).
    let declared: Set<String>?

    /// - Parameters:
    ///   - environment: the variables; the process environment by default.
    ///   - declared: the binary's settings; reading any other one is a problem.
    public init(_ environment: Environment = Environment(), declared: BinarySettings? = nil) {
        self.environment = environment
        self.declared = declared?.names
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

    /// Records a problem with `setting`; see ``report(_:_:)-(String,_)``.
    public mutating func report(_ setting: Setting, _ message: String) {
        report(setting.name, message)
    }

    /// Whether `setting` itself is set (not empty), without parsing it: for
    /// checks such as "SASL settings need a SASL protocol".
    public mutating func isSet(_ setting: Setting) -> Bool {
        accepts(setting) && environment[setting.name] != nil
    }

    /// Whether the file variant (`NAME_FILE`) of a secret `setting` is set.
    public mutating func isFileSet(_ setting: Setting) -> Bool {
        guard accepts(setting), let file = setting.fileVariant else { return false }
        return environment[file] != nil
    }

    /// The variable names among `settings` (and their file variants) that are
    /// set, in order, each `NAME` before its `NAME_FILE`: what a check reports
    /// as "set but without effect".
    public mutating func setNames(of settings: [Setting]) -> [String] {
        var names: [String] = []
        for setting in settings {
            if isSet(setting) { names.append(setting.name) }
            if isFileSet(setting), let file = setting.fileVariant { names.append(file) }
        }
        return names
    }

    /// The raw text of `setting`, unparsed (nil when unset or empty).
    public mutating func rawValue(_ setting: Setting) -> String? {
        guard accepts(setting) else { return nil }
        return environment[setting.name]
    }

    /// A reader of the same variables and declarations with no problems yet:
    /// for reading something once more without reporting twice.
    public func withoutProblems() -> ConfigReader {
        var fresh = self
        fresh.problems = []
        return fresh
    }

    /// Whether this binary declared `setting`; records a problem when it did not.
    mutating func accepts(_ setting: Setting) -> Bool {
        guard let declared, !declared.contains(setting.name) else { return true }
        let problem = ConfigurationProblem(
            variable: setting.name, message: "read but not among this binary's declared settings (add its group to the binary's list)")
        if !problems.contains(problem) { problems.append(problem) }
        return false
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

    mutating func lookup<Value>(_ setting: Setting, _ parser: ConfigValueParser<Value>) -> Lookup<Value> {
        guard accepts(setting) else { return .invalid }
        let name = setting.name
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
    /// The value of `setting` parsed with `parser`, or `nil` when unset or invalid
    /// (invalid values are recorded as problems).
    public mutating func value<Value>(_ setting: Setting, _ parser: ConfigValueParser<Value>) -> Value? {
        if case .value(let value) = lookup(setting, parser) { return value }
        return nil
    }

    /// The value of `setting` parsed with `parser`, or `defaultValue` when unset
    /// or invalid (invalid values are recorded as problems).
    public mutating func value<Value>(_ setting: Setting, _ parser: ConfigValueParser<Value>, default defaultValue: Value) -> Value {
        value(setting, parser) ?? defaultValue
    }

    /// As above; values that can be compared are also checked against the
    /// default the declaration shows (``defaultMismatches``).
    public mutating func value<Value: Equatable>(_ setting: Setting, _ parser: ConfigValueParser<Value>, default defaultValue: Value) -> Value {
        if let shown = setting.shownDefault, let declared = parser.parse(shown) {
            comparedDefaults += 1
            if declared != defaultValue {
                defaultMismatches.append("\(setting.name): declared default \(shown), read with \(defaultValue)")
            }
        }
        return value(setting, parser) ?? defaultValue
    }

    public mutating func string(_ setting: Setting) -> String? { value(setting, .string) }
    public mutating func string(_ setting: Setting, default defaultValue: String) -> String { value(setting, .string, default: defaultValue) }

    public mutating func int(_ setting: Setting, in range: ClosedRange<Int>? = nil) -> Int? { value(setting, .int(in: range)) }
    public mutating func int(_ setting: Setting, default defaultValue: Int, in range: ClosedRange<Int>? = nil) -> Int {
        value(setting, .int(in: range), default: defaultValue)
    }

    public mutating func double(_ setting: Setting) -> Double? { value(setting, .double) }
    public mutating func double(_ setting: Setting, default defaultValue: Double) -> Double { value(setting, .double, default: defaultValue) }

    /// Accepts `true/false/1/0/yes/no`, in any case.
    public mutating func bool(_ setting: Setting) -> Bool? { value(setting, .bool) }
    public mutating func bool(_ setting: Setting, default defaultValue: Bool) -> Bool { value(setting, .bool, default: defaultValue) }

    public mutating func url(_ setting: Setting) -> URL? { value(setting, .url) }
    public mutating func url(_ setting: Setting, default defaultValue: URL) -> URL { value(setting, .url, default: defaultValue) }

    /// Accepts plain seconds (`30`, `1.5`) or `250ms`, `30s`, `5m`, `1h`.
    public mutating func duration(_ setting: Setting) -> Duration? { value(setting, .duration) }
    public mutating func duration(_ setting: Setting, default defaultValue: Duration) -> Duration { value(setting, .duration, default: defaultValue) }

    /// One of the cases of an enum whose raw values are strings.
    public mutating func enumeration<E: RawRepresentable & CaseIterable>(_ setting: Setting, as type: E.Type = E.self) -> E?
    where E.RawValue == String {
        value(setting, .oneOf(type))
    }
    public mutating func enumeration<E: RawRepresentable & CaseIterable>(_ setting: Setting, default defaultValue: E) -> E
    where E.RawValue == String {
        value(setting, .oneOf(E.self), default: defaultValue)
    }

    /// Comma-separated strings, trimmed, empty items dropped.
    public mutating func list(_ setting: Setting) -> [String]? { value(setting, .list(of: .string)) }
    public mutating func list(_ setting: Setting, default defaultValue: [String]) -> [String] {
        value(setting, .list(of: .string), default: defaultValue)
    }
}
