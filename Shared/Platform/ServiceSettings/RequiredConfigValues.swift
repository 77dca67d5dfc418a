import Foundation

/// The required-value side of a ``ConfigReader``, reached through
/// ``ConfigReader/required``.
///
/// Each read returns the value, or a placeholder (empty string, zero, first
/// enum case…) after recording "required but not set" or the type error.
/// The placeholder is never used because ``ConfigReader/finish()`` then throws.
public struct RequiredConfigValues: Sendable {
    var reader: ConfigReader

    /// The value of `setting` parsed with `parser`; `placeholder` when missing or invalid.
    public mutating func value<Value>(_ setting: Setting, _ parser: ConfigValueParser<Value>, placeholder: Value) -> Value {
        switch reader.lookup(setting, parser) {
        case .value(let value): return value
        case .invalid: return placeholder
        case .unset:
            reader.report(setting, "required but not set")
            return placeholder
        }
    }

    public mutating func string(_ setting: Setting) -> String { value(setting, .string, placeholder: "") }
    public mutating func int(_ setting: Setting, in range: ClosedRange<Int>? = nil) -> Int {
        value(setting, .int(in: range), placeholder: range?.lowerBound ?? 0)
    }
    public mutating func double(_ setting: Setting) -> Double { value(setting, .double, placeholder: 0) }
    public mutating func bool(_ setting: Setting) -> Bool { value(setting, .bool, placeholder: false) }
    public mutating func url(_ setting: Setting) -> URL { value(setting, .url, placeholder: URL(string: "about:blank")!) }
    public mutating func duration(_ setting: Setting) -> Duration { value(setting, .duration, placeholder: .zero) }
    public mutating func enumeration<E: RawRepresentable & CaseIterable>(_ setting: Setting, as type: E.Type = E.self) -> E
    where E.RawValue == String {
        guard let first = E.allCases.first else { preconditionFailure("\(E.self) has no cases") }
        return value(setting, .oneOf(type), placeholder: first)
    }
    public mutating func list(_ setting: Setting) -> [String] { value(setting, .list(of: .string), placeholder: []) }

    /// A secret from `setting` or the file named by its `_FILE` variant; see ``ConfigReader/secret(_:)``.
    public mutating func secret(_ setting: Setting) -> Secret {
        switch reader.secretLookup(setting) {
        case .value(let secret): return secret
        case .invalid: return Secret("")
        case .unset:
            reader.report(setting, "required but not set (set \(setting.name) or \(setting.name)_FILE)")
            return Secret("")
        }
    }
}
