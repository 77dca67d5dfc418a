import BillingModel

/// One value of a Stripe API request: Stripe takes
/// `application/x-www-form-urlencoded` bodies whose nested parameters are
/// spelled with brackets (`metadata[storefront_user_id]=…`,
/// `line_items[0][price]=…`), not JSON.
public indirect enum StripeParameter: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    case string(String)
    /// Encoded with indices: `key[0]`, `key[1]`, …
    case list([StripeParameter])
    /// Encoded as `key[name]`, in the order given.
    case map([StripeField])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .string(String(value)) }
    /// Stripe spells booleans `true` and `false`.
    public init(booleanLiteral value: Bool) { self = .string(value ? "true" : "false") }
}

/// A named parameter; a request's parameters are a list of them, in order.
public struct StripeField: Sendable, Hashable {
    public let name: String
    public let value: StripeParameter

    public init(_ name: String, _ value: StripeParameter) {
        self.name = name
        self.value = value
    }
}

/// Encodes parameters as Stripe's form bodies.
public enum StripeFormEncoding {
    /// The flat `(key, value)` pairs of `fields`, brackets unencoded
    /// (`line_items[0][price]`), in the order given. An empty string value is
    /// kept: Stripe reads `key=` as "unset" where a field can be cleared.
    public static func pairs(_ fields: [StripeField]) -> [(key: String, value: String)] {
        var out: [(key: String, value: String)] = []
        func walk(_ key: String, _ value: StripeParameter) {
            switch value {
            case .string(let text): out.append((key: key, value: text))
            case .list(let items): for (index, item) in items.enumerated() { walk("\(key)[\(index)]", item) }
            case .map(let members): for member in members { walk("\(key)[\(member.name)]", member.value) }
            }
        }
        for field in fields { walk(field.name, field.value) }
        return out
    }

    /// The request body: `key=value` pairs joined with `&`, every byte but
    /// the unreserved ones (`A-Z a-z 0-9 - . _ ~`) percent-encoded, brackets
    /// included, as form encoders do.
    public static func body(_ fields: [StripeField]) -> String {
        pairs(fields).map { percentEncode($0.key) + "=" + percentEncode($0.value) }.joined(separator: "&")
    }

    static func percentEncode(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 0x0F)]))
            }
        }
        return out
    }
}
