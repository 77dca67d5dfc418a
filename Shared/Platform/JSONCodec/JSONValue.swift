import Foundation

/// A parsed JSON document, used to read provider payloads leniently: the
/// providers add fields freely and mix types (ids as numbers or strings,
/// `metadata` as object, string, `0` or `null`), so typed `Codable` models
/// would break where these accessors simply answer nil.
public enum JSONValue: Sendable, Hashable, Decodable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// Largest body accepted (webhooks are a few KB; this bounds memory per request).
    public static let maximumBodySize = 1 << 20

    /// Parses `bytes` with ``JSONReader`` (one pass, no `Codable`); throws
    /// ``JSONReadError`` for oversize or invalid JSON.
    public static func parse(_ bytes: [UInt8]) throws(JSONReadError) -> JSONValue {
        guard bytes.count <= maximumBodySize else { throw .tooLarge(bytes: bytes.count) }
        return try JSONReader.parse(bytes)
    }

    /// For `Codable` models that embed arbitrary JSON (provider API answers).
    public init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var values: [JSONValue] = []
            while !array.isAtEnd { values.append(try array.decode(JSONValue.self)) }
            self = .array(values)
            return
        }
        if let object = try? decoder.container(keyedBy: AnyKey.self) {
            var values = JSONObject()
            for key in object.allKeys { values[key.stringValue] = try object.decode(JSONValue.self, forKey: key) }
            self = .object(values)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let value = try? single.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? single.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? single.decode(Double.self) {
            self = .double(value)
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { return nil }
    }

    // MARK: - Lenient accessors

    /// The member `key` of an object; nil for other values or a missing key.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// Follows a path of object keys.
    public subscript(path: String...) -> JSONValue? {
        var current: JSONValue? = self
        for key in path { current = current?[key] }
        return current
    }

    public var object: JSONObject? {
        if case .object(let members) = self { return members }
        return nil
    }

    public var array: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    public var isNull: Bool { self == .null }

    /// Strings as they are; integers, whole doubles and booleans in their JSON
    /// spelling (ids arrive as both `"1"` and `1`). Nil for null, empty
    /// strings, arrays and objects.
    public var string: String? {
        switch self {
        case .string(let text): text.isEmpty ? nil : text
        case .integer(let value): String(value)
        case .double(let value): value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        case .bool(let value): String(value)
        default: nil
        }
    }

    /// Integers, whole doubles, and strings holding an integer (Paystack
    /// refund amounts are strings such as `"5000"`).
    public var int64: Int64? {
        switch self {
        case .integer(let value): value
        case .double(let value): value == value.rounded() && abs(value) < 9e15 ? Int64(value) : nil
        case .string(let text): Int64(text.trimmingCharacters(in: .whitespaces))
        default: nil
        }
    }

    /// Booleans; also `"true"`/`"false"`, `1`/`0`.
    public var bool: Bool? {
        switch self {
        case .bool(let value): value
        case .integer(let value): value == 0 ? false : value == 1 ? true : nil
        case .string(let text): text == "true" ? true : text == "false" ? false : nil
        default: nil
        }
    }

    /// An object with at least one member (Paystack sends `{}` for "none").
    public var nonEmptyObject: JSONObject? {
        guard let members = object, !members.isEmpty else { return nil }
        return members
    }
}
