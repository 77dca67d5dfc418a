/// A JSON value whose objects keep their key order, so the sandbox writes
/// payloads in the same field order as the providers' examples and the bytes
/// it signs are stable from run to run.
public enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([JSONField])

    /// `.string(s)` or `.null` when `s` is nil.
    public init(_ value: String?) { self = value.map(JSONValue.string) ?? .null }
    /// `.int(i)` or `.null` when `i` is nil.
    public init(_ value: Int?) { self = value.map(JSONValue.int) ?? .null }
    /// `.bool(b)` or `.null` when `b` is nil.
    public init(_ value: Bool?) { self = value.map(JSONValue.bool) ?? .null }

    /// The member named `key` of an object (first match), or nil.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let fields) = self else { return nil }
        return fields.first { $0.key == key }?.value
    }

    /// The element at `index` of an array, or nil.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let items) = self, items.indices.contains(index) else { return nil }
        return items[index]
    }

    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    public var objectValue: [JSONField]? { if case .object(let o) = self { o } else { nil } }
    public var isNull: Bool { self == .null }

    /// An integer, also accepted when sent as a numeric string (Paystack's docs send `"20000"`).
    public var intValue: Int? {
        switch self {
        case .int(let i): i
        case .double(let d) where d.rounded() == d && abs(d) < 1e15: Int(d)
        case .string(let s): Int(s)
        default: nil
        }
    }

    /// A copy of this object with `key` set to `value` (replaced in place, or appended).
    public func setting(_ key: String, _ value: JSONValue) -> JSONValue {
        guard case .object(var fields) = self else { return self }
        if let index = fields.firstIndex(where: { $0.key == key }) {
            fields[index].value = value
        } else {
            fields.append(JSONField(key: key, value: value))
        }
        return .object(fields)
    }
}

extension JSONValue: Equatable {
    /// Objects compare as unordered maps (JSON semantics); parsed objects have sorted keys.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.int(let a), .double(let b)), (.double(let b), .int(let a)): Double(a) == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)):
            a.count == b.count && a.allSatisfy { field in b.contains { $0.key == field.key && $0.value == field.value } }
        default: false
        }
    }
}

/// One member of a JSON object.
public struct JSONField: Sendable, Equatable {
    public var key: String
    public var value: JSONValue
    public init(key: String, value: JSONValue) {
        self.key = key
        self.value = value
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral, ExpressibleByFloatLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
    /// Dictionary literals keep their written order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(elements.map { JSONField(key: $0.0, value: $0.1) })
    }
}
