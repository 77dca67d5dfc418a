import Foundation

/// Turns the text of one environment variable into a typed value.
///
/// `expected` completes the sentence "expected …, got "…"" in error
/// messages, e.g. `an integer` or `one of debug, info`. Build your own for
/// types the reader has no shortcut for.
public struct ConfigValueParser<Value> {
    /// What a valid value looks like, for error messages.
    public let expected: String
    let parse: (String) -> Value?

    /// - Parameters:
    ///   - expected: what a valid value looks like ("a port number").
    ///   - parse: returns `nil` when the text is not valid.
    public init(expected: String, parse: @escaping (String) -> Value?) {
        self.expected = expected
        self.parse = parse
    }
}

extension ConfigValueParser where Value == String {
    /// Any non-empty text, as is.
    public static var string: Self { Self(expected: "a string") { $0 } }
}

extension ConfigValueParser where Value == Int {
    /// A decimal integer, optionally limited to `range`.
    public static func int(in range: ClosedRange<Int>? = nil) -> Self {
        let expected = range.map { "an integer in \($0.lowerBound)...\($0.upperBound)" } ?? "an integer"
        return Self(expected: expected) { text in
            guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else { return nil }
            if let range, !range.contains(value) { return nil }
            return value
        }
    }
}

extension ConfigValueParser where Value == Double {
    /// A finite decimal number.
    public static var double: Self {
        Self(expected: "a number") { text in
            guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite else { return nil }
            return value
        }
    }
}

extension ConfigValueParser where Value == Bool {
    /// `true`/`false`, `1`/`0` or `yes`/`no`, in any case.
    public static var bool: Self {
        Self(expected: BooleanSetting.accepted) { text in BooleanSetting.parse(text) }
    }
}

extension ConfigValueParser where Value == URL {
    /// An absolute URL (it must have a scheme, such as `https:` or `postgres:`).
    public static var url: Self {
        Self(expected: "an absolute URL") { text in
            guard let url = URL(string: text, encodingInvalidCharacters: false), let scheme = url.scheme, !scheme.isEmpty else { return nil }
            return url
        }
    }
}

extension ConfigValueParser where Value == Duration {
    /// A non-negative duration: plain seconds (`30`, `1.5`) or a number with
    /// a unit `ms`, `s`, `m`, `h` or `d` (`250ms`, `5m`, `30d`). At most about 31 years.
    public static var duration: Self {
        Self(expected: "a duration in seconds (e.g. 30, 1.5, 250ms, 5m, 30d)") { text in
            let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
            let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400)]
            var number = Substring(trimmed)
            var scale = 1.0
            if let unit = units.first(where: { trimmed.hasSuffix($0.suffix) }) {
                number = trimmed.dropLast(unit.suffix.count)
                scale = unit.seconds
            }
            guard let value = Double(number), value.isFinite, value >= 0 else { return nil }
            let seconds = value * scale
            guard seconds <= 1e9 else { return nil }
            return .seconds(seconds)
        }
    }
}

extension ConfigValueParser where Value: RawRepresentable, Value.RawValue == String {
    /// A raw value of `type`, matched exactly.
    public static func rawValue(of type: Value.Type) -> Self {
        Self(expected: "a valid \(type)") { Value(rawValue: $0) }
    }
}

extension ConfigValueParser where Value: RawRepresentable & CaseIterable, Value.RawValue == String {
    /// One of the cases of `type`, matched exactly first and then ignoring case.
    public static func oneOf(_ type: Value.Type) -> Self {
        let names = Value.allCases.map(\.rawValue)
        return Self(expected: "one of " + names.joined(separator: ", ")) { text in
            if let exact = Value(rawValue: text) { return exact }
            return Value.allCases.first { $0.rawValue.lowercased() == text.lowercased() }
        }
    }
}

extension ConfigValueParser {
    /// A comma-separated list whose items each parse with `element`; spaces
    /// around items and empty items are ignored.
    public static func list<Element>(of element: ConfigValueParser<Element>) -> Self where Value == [Element] {
        Self(expected: "a comma-separated list where each item is \(element.expected)") { text in
            var values: [Element] = []
            for item in text.split(separator: ",") {
                let trimmed = item.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty { continue }
                guard let value = element.parse(trimmed) else { return nil }
                values.append(value)
            }
            return values
        }
    }
}
