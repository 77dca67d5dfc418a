/// Reads JSON text (RFC 8259) straight from bytes into a ``JSONValue``.
///
/// Why not `JSONDecoder`: a webhook body is arbitrary JSON, and decoding it
/// through `Codable` tries each type in turn, throwing and discarding errors
/// at every value; profiled under load that was most of the receiver's CPU.
/// This reader makes one pass over the bytes with no intermediate `Data`.
///
/// Strict where it matters (the grammar, UTF-8, nesting depth) and plain
/// otherwise: integers that fit in `Int64` are ``JSONValue/integer(_:)``,
/// every other number ``JSONValue/double(_:)``; a repeated object key keeps
/// its last value (see ``JSONObject``).
///
/// It reads through an `UnsafeBufferPointer` that lives only for the parse
/// (no bounds checks or reference counting per byte), and makes ASCII
/// strings without a UTF-8 validation pass: a profile of the receiver showed
/// both.
public struct JSONReader {
    /// Deepest nesting of arrays and objects accepted (bounds the recursion).
    static let maximumDepth = 256

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0

    /// Parses one JSON document.
    /// - Throws: ``JSONReadError/malformed(_:)`` naming the byte offset.
    public static func parse(_ bytes: [UInt8]) throws(JSONReadError) -> JSONValue {
        let parsed = bytes.withUnsafeBufferPointer { buffer -> Result<JSONValue, JSONReadError> in
            var reader = JSONReader(bytes: buffer)
            do throws(JSONReadError) {
                reader.skipWhitespace()
                let value = try reader.value()
                reader.skipWhitespace()
                guard reader.index == buffer.count else { throw reader.failure("unexpected text after the document") }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try parsed.get()
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    // MARK: - Values

    private mutating func value() throws(JSONReadError) -> JSONValue {
        guard index < bytes.count else { throw failure("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("unexpected character")
        }
    }

    private mutating func object() throws(JSONReadError) -> JSONValue {
        try enter()
        index += 1
        var members = JSONObject()
        skipWhitespace()
        if peek(UInt8(ascii: "}")) {
            index += 1
            depth -= 1
            return .object(members)
        }
        members.reserveCapacity(8)
        while true {
            skipWhitespace()
            guard peek(UInt8(ascii: "\"")) else { throw failure("expected a member name") }
            let key = try string()
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else { throw failure("expected ':'") }
            index += 1
            skipWhitespace()
            members.append(key, try value())
            skipWhitespace()
            if peek(UInt8(ascii: ",")) { index += 1; continue }
            guard peek(UInt8(ascii: "}")) else { throw failure("expected ',' or '}'") }
            index += 1
            depth -= 1
            return .object(members)
        }
    }

    private mutating func array() throws(JSONReadError) -> JSONValue {
        try enter()
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if peek(UInt8(ascii: "]")) {
            index += 1
            depth -= 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try value())
            skipWhitespace()
            if peek(UInt8(ascii: ",")) { index += 1; continue }
            guard peek(UInt8(ascii: "]")) else { throw failure("expected ',' or ']'") }
            index += 1
            depth -= 1
            return .array(items)
        }
    }

    private mutating func enter() throws(JSONReadError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw failure("nested deeper than \(Self.maximumDepth)") }
    }

    private mutating func literal(_ word: StaticString) throws(JSONReadError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw failure("unexpected end") }
        let matches = word.withUTF8Buffer { expected in
            (0..<count).allSatisfy { bytes[index + $0] == expected[$0] }
        }
        guard matches else { throw failure("unexpected character") }
        index += count
    }

    // MARK: - Numbers

    private mutating func number() throws(JSONReadError) -> JSONValue {
        let start = index
        if peek(UInt8(ascii: "-")) { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw failure("expected a digit") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        var isInteger = true
        if peek(UInt8(ascii: ".")) {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("expected a digit after '.'") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            isInteger = false
            index += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("expected a digit in the exponent") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if isInteger, let value = Int64(text) { return .integer(value) }
        guard let value = Double(text), value.isFinite else { throw failure("number out of range") }
        return .double(value)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    // MARK: - Strings

    /// A string starting at the opening quote. Runs without escapes are
    /// copied as they are (after UTF-8 validation); escapes are decoded,
    /// `\u` surrogate pairs included.
    private mutating func string() throws(JSONReadError) -> String {
        index += 1
        var runStart = index
        var escaped: [UInt8]? = nil
        var isASCII = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let run = UnsafeBufferPointer(rebasing: bytes[runStart..<index])
                index += 1
                if var buffer = escaped {
                    buffer.append(contentsOf: run)
                    guard let text = String(validating: buffer, as: UTF8.self) else { throw failure("invalid UTF-8 in a string") }
                    return text
                }
                // ASCII is valid UTF-8 as it is; only other bytes need the check.
                if isASCII { return String(decoding: run, as: UTF8.self) }
                guard let text = String(validating: run, as: UTF8.self) else { throw failure("invalid UTF-8 in a string") }
                return text
            }
            if byte < 0x20 { throw failure("control character in a string") }
            if byte == UInt8(ascii: "\\") {
                var buffer = escaped ?? []
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                try unescape(into: &buffer)
                escaped = buffer
                runStart = index
                continue
            }
            if byte >= 0x80 { isASCII = false }
            index += 1
        }
        throw failure("unterminated string")
    }

    /// Decodes the escape at `index` (a backslash) into `buffer` as UTF-8.
    private mutating func unescape(into buffer: inout [UInt8]) throws(JSONReadError) {
        guard index + 1 < bytes.count else { throw failure("unterminated escape") }
        let code = bytes[index + 1]
        index += 2
        switch code {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(code)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate must be followed by an escaped low one.
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw failure("unpaired surrogate")
                }
                index += 2
                let low = try hex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw failure("unpaired surrogate") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw failure("unpaired surrogate")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw failure("invalid \\u escape") }
            buffer.append(contentsOf: Array(String(Character(unicode)).utf8))
        default:
            throw failure("invalid escape")
        }
    }

    private mutating func hex4() throws(JSONReadError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("unterminated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw failure("invalid \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    // MARK: - Helpers

    private func peek(_ byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func failure(_ reason: String) -> JSONReadError {
        .malformed("\(reason) at byte \(index)")
    }
}
