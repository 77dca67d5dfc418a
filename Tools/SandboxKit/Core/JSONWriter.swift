/// Serialises ``JSONValue`` compactly, in one of two dialects.
///
/// Lemon Squeezy is a PHP service: its bodies escape `/` as `\/` and non-ASCII
/// as `\uXXXX` (seen in captured deliveries). Paystack (Node) escapes only
/// what JSON requires. Emulating both keeps receivers honest about verifying
/// signatures over the raw bytes rather than a re-serialisation.
public enum JSONWriter {
    public enum Dialect: Sendable {
        /// `json_encode` defaults: escaped slashes and non-ASCII.
        case php
        /// `JSON.stringify`: minimal escaping.
        case node
    }

    public static func encode(_ value: JSONValue, dialect: Dialect = .node) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        write(value, dialect, &out)
        return out
    }

    public static func string(_ value: JSONValue, dialect: Dialect = .node) -> String {
        String(decoding: encode(value, dialect: dialect), as: UTF8.self)
    }

    private static func write(_ value: JSONValue, _ dialect: Dialect, _ out: inout [UInt8]) {
        switch value {
        case .null: out += Array("null".utf8)
        case .bool(let b): out += Array((b ? "true" : "false").utf8)
        case .int(let i): out += Array(String(i).utf8)
        case .double(let d): out += Array((d.isFinite ? String(d) : "null").utf8)
        case .string(let s): writeString(s, dialect, &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                write(item, dialect, &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            for (index, field) in fields.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                writeString(field.key, dialect, &out)
                out.append(UInt8(ascii: ":"))
                write(field.value, dialect, &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func writeString(_ s: String, _ dialect: Dialect, _ out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += Array("\\\"".utf8)
            case "\\": out += Array("\\\\".utf8)
            case "\n": out += Array("\\n".utf8)
            case "\r": out += Array("\\r".utf8)
            case "\t": out += Array("\\t".utf8)
            case "/" where dialect == .php: out += Array("\\/".utf8)
            default:
                if scalar.value < 0x20 || (dialect == .php && scalar.value > 0x7E) {
                    for unit in String(scalar).utf16 { out += Array(hex4(unit).utf8) }
                } else {
                    out += Array(String(scalar).utf8)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func hex4(_ unit: UInt16) -> String {
        let digits = String(unit, radix: 16)
        return "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
    }
}
