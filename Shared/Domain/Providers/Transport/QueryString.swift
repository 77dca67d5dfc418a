/// Builds URL query strings and path segments with RFC 3986 percent-encoding.
///
/// Everything outside the unreserved set is encoded, so `filter[store_id]`
/// goes out as `filter%5Bstore_id%5D` (as the Lemon Squeezy SDK sends it) and
/// an email in a path cannot add segments or a query.
enum QueryString {
    static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(percentEncode($0.0))=\(percentEncode($0.1))" }.joined(separator: "&")
    }

    static func percentEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if isUnreserved(byte) {
                out.append(Character(Unicode.Scalar(byte)))
            } else {
                let digits = Array("0123456789ABCDEF")
                out += "%\(digits[Int(byte >> 4)])\(digits[Int(byte & 0x0F)])"
            }
        }
        return out
    }

    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
        default: false
        }
    }
}
