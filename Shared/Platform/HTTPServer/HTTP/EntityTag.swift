/// Strong entity tags and `If-None-Match` evaluation (RFC 9110 §8.8.3, §13.1.2).
public enum EntityTag {
    /// The strong tag of a response body: `"<16 hex digits of FNV-1a 64>"`,
    /// quotes included, ready for the `ETag` header.
    public static func strong(for body: [UInt8]) -> String {
        "\"" + FNV1a.hex64(body) + "\""
    }

    /// Longest `If-None-Match` text examined; the server's header limit
    /// already bounds it, this keeps the scan cheap whatever that limit is.
    static let maximumHeaderLength = 8 * 1024

    /// Whether `If-None-Match` field values match `etag`, meaning the client's
    /// copy is current and a `304 Not Modified` is the answer.
    ///
    /// Uses the weak comparison RFC 9110 prescribes for `If-None-Match`
    /// (a `W/` prefix is ignored). `*` matches any current representation.
    /// Each value may be a comma-separated list; malformed members are skipped.
    /// - Parameters:
    ///   - headerValues: every `If-None-Match` field value of the request.
    ///   - etag: the current tag, quoted (as ``strong(for:)`` returns it).
    public static func ifNoneMatch(_ headerValues: [String], matches etag: String) -> Bool {
        let opaque = etag.utf8.dropFirst().dropLast()
        for value in headerValues where value.utf8.count <= maximumHeaderLength {
            var matched = false
            forEachMember(of: value) { member in
                switch member {
                case .any: matched = true
                case .tag(let tag): if tag.elementsEqual(opaque) { matched = true }
                }
            }
            if matched { return true }
        }
        return false
    }

    enum Member {
        case any
        case tag(Substring.UTF8View)
    }

    /// Scans `#( "*" / [ "W/" ] DQUOTE *etagc DQUOTE )` leniently: a quoted
    /// tag may itself contain commas, so splitting on commas is not enough.
    static func forEachMember(of value: String, _ body: (Member) -> Void) {
        let bytes = Substring(value).utf8
        var index = bytes.startIndex
        func skip(while predicate: (UInt8) -> Bool) {
            while index < bytes.endIndex, predicate(bytes[index]) { index = bytes.index(after: index) }
        }
        while index < bytes.endIndex {
            skip { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: ",") }
            guard index < bytes.endIndex else { return }
            if bytes[index] == UInt8(ascii: "*") {
                body(.any)
                index = bytes.index(after: index)
            } else {
                if bytes[index] == UInt8(ascii: "W"), bytes.index(after: index) < bytes.endIndex,
                    bytes[bytes.index(after: index)] == UInt8(ascii: "/")
                {
                    index = bytes.index(index, offsetBy: 2)
                }
                if index < bytes.endIndex, bytes[index] == UInt8(ascii: "\"") {
                    let start = bytes.index(after: index)
                    var end = start
                    while end < bytes.endIndex, bytes[end] != UInt8(ascii: "\"") { end = bytes.index(after: end) }
                    guard end < bytes.endIndex else { return } // unterminated: ignore the rest
                    body(.tag(bytes[start..<end]))
                    index = bytes.index(after: end)
                }
            }
            // Anything up to the next comma is not part of a valid member.
            skip { $0 != UInt8(ascii: ",") }
        }
    }
}
