/// A transport-neutral HTTP request, as the lead's HTTP server hands it over.
public struct SandboxRequest: Sendable {
    public var method: String
    /// The decoded path, without the query string (e.g. `/lemonsqueezy/v1/products`).
    public var path: String
    /// Decoded query items in order (`page[number]` arrives as its decoded name).
    public var query: [(name: String, value: String)]
    public var headers: SandboxHeaders
    public var body: [UInt8]

    public init(
        method: String, path: String, query: [(name: String, value: String)] = [], headers: SandboxHeaders = SandboxHeaders(), body: [UInt8] = []
    ) {
        self.method = method.uppercased()
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// Builds a request from a raw request target such as `/paystack/plan?perPage=2&page=1`,
    /// percent-decoding the path and query (`+` in the query means a space).
    public init(method: String, target: String, headers: SandboxHeaders = SandboxHeaders(), body: [UInt8] = []) {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let rawPath = parts.first.map(String.init) ?? "/"
        let rawQuery = parts.count > 1 ? String(parts[1]) : ""
        self.init(
            method: method, path: FormDecoding.percentDecode(rawPath, plusIsSpace: false), query: FormDecoding.decode(rawQuery), headers: headers,
            body: body)
    }

    /// The first value of query item `name`, or nil.
    public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }
}

/// Decoding of `application/x-www-form-urlencoded` text (query strings and HTML form posts).
public enum FormDecoding {
    public static func decode(_ text: String) -> [(name: String, value: String)] {
        text.split(separator: "&").compactMap { pair in
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let rawName = kv.first, !rawName.isEmpty else { return nil }
            let value = kv.count > 1 ? percentDecode(String(kv[1]), plusIsSpace: true) : ""
            return (name: percentDecode(String(rawName), plusIsSpace: true), value: value)
        }
    }

    public static func percentDecode(_ text: String, plusIsSpace: Bool) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
                let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else if byte == UInt8(ascii: "+"), plusIsSpace {
                bytes.append(UInt8(ascii: " "))
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Percent-encodes a query component (unreserved characters stay as they are).
    public static func percentEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }

    /// `a=b&c=d` with both sides percent-encoded.
    public static func encode(_ items: [(String, String)]) -> String {
        items.map { percentEncode($0.0) + "=" + percentEncode($0.1) }.joined(separator: "&")
    }
}
