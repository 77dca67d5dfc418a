/// Accepts or generates request ids for `X-Request-Id`.
public enum RequestID {
    /// The header that carries the id in both directions.
    public static let headerName = "X-Request-Id"
    /// Longer client ids are replaced by a generated one.
    public static let maximumLength = 128

    /// Whether a client-supplied id is short enough and uses only `A-Z a-z 0-9 - _ . :`
    /// (safe in logs, headers and metric exemplars).
    public static func isAcceptable(_ candidate: String) -> Bool {
        let utf8 = candidate.utf8
        guard !utf8.isEmpty, utf8.count <= maximumLength else { return false }
        return utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"),
                UInt8(ascii: "."), UInt8(ascii: ":"):
                return true
            default:
                return false
            }
        }
    }

    /// 32 random hex digits (128 bits): unique without coordination, cheap to make.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        return hex(high) + hex(low)
    }

    private static func hex(_ value: UInt64) -> String {
        let text = String(value, radix: 16)
        return text.count == 16 ? text : String(repeating: "0", count: 16 - text.count) + text
    }
}
