import Foundation

extension JSONValue: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let b = try? container.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? container.decode(Int.self) {
            self = .int(i)
        } else if let d = try? container.decode(Double.self) {
            self = .double(d)
        } else if let s = try? container.decode(String.self) {
            self = .string(s)
        } else if let a = try? container.decode([JSONValue].self) {
            self = .array(a)
        } else {
            // Parsed objects lose their order; sort keys so re-encoding is deterministic.
            let o = try container.decode([String: JSONValue].self)
            self = .object(o.keys.sorted().map { JSONField(key: $0, value: o[$0]!) })
        }
    }

    /// Parses JSON bytes; nil when they are not valid JSON.
    public static func parse(_ bytes: [UInt8]) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    /// Parses a JSON string; nil when it is not valid JSON.
    public static func parse(_ text: String) -> JSONValue? { parse(Array(text.utf8)) }
}
