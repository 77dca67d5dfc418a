import Foundation

/// The required-value side of a ``ConfigReader``, reached through
/// ``ConfigReader/required``.
///
/// Each read returns the value, or a placeholder (empty string, zero, first
/// enum case…) after recording "required but not set" or the type error.
/// The placeholder is never used because ``ConfigReader/finish()`` then throws.
public struct RequiredConfigValues: Sendable {
    var reader: ConfigReader

    /// The value of `name` parsed with `parser`; `placeholder` when missing or invalid.
    public mutating func value<Value>(_ name: String, _ parser: ConfigValueParser<Value>, placeholder: Value) -> Value {
        switch reader.lookup(name, parser) {
        case .value(let value): return value
        case .invalid: return placeholder
        case .unset:
            reader.report(name, "required but not set")
            return placeholder
        }
    }

    public mutating func string(_ name: String) -> String { value(name, .string, placeholder: "") }
    public mutating func int(_ name: String, in range: ClosedRange<Int>? = nil) -> Int {
        value(name, .int(in: range), placeholder: range?.lowerBound ?? 0)
    }
    public mutating func double(_ name: String) -> Double { value(name, .double, placeholder: 0) }
    public mutating func bool(_ name: String) -> Bool { value(name, .bool, placeholder: false) }
    public mutating func url(_ name: String) -> URL { value(name, .url, placeholder: URL(string: "about:blank")!) }
    public mutating func duration(_ name: String) -> Duration { value(name, .duration, placeholder: .zero) }
    public mutating func enumeration<E: RawRepresentable & CaseIterable>(_ name: String, as type: E.Type = E.self) -> E where E.RawValue == String {
        guard let first = E.allCases.first else { preconditionFailure("\(E.self) has no cases") }
        return value(name, .oneOf(type), placeholder: first)
    }
    public mutating func list(_ name: String) -> [String] { value(name, .list(of: .string), placeholder: []) }

    /// A secret from `name` or the file named by `name_FILE`; see ``ConfigReader/secret(_:)``.
    public mutating func secret(_ name: String) -> Secret {
        switch reader.secretLookup(name) {
        case .value(let secret): return secret
        case .invalid: return Secret("")
        case .unset:
            reader.report(name, "required but not set (set \(name) or \(name)_FILE)")
            return Secret("")
        }
    }
}
