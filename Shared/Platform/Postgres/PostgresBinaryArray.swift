import Foundation

/// One-dimensional arrays in PostgreSQL's binary format (what `array_send`
/// writes and `array_recv` reads), built from binds' kept values.
///
/// Why: a batch's set-based statements send kilobytes per row (an event's
/// JSON, its payload); as array text the server scans every byte for quotes
/// and escapes, parses each `bytea` from hex and each `timestamptz` from ISO
/// text, a fifth of its CPU in the projector's catch-up. In binary each
/// element is its length and its bytes.
///
/// Safe by construction: an element is written in binary only when the bind
/// holds exactly the value the element type's binary form stores (an
/// instant for `timestamptz`, bytes for `bytea`, an integer in range for
/// `int2`/`int4`/`int8`, any text form for `text`, text for `jsonb`, UUID
/// bytes for `uuid`); anything else returns nil and the caller sends the
/// text form, which the server parses as before. The header names the
/// element type, and the server refuses an array whose element type is not
/// the one its statement expects ("wrong element type"), so a mismatch
/// fails loudly instead of being converted.
enum PostgresBinaryArray {
    /// Microseconds from 1970-01-01 (Swift's reference for these binds) to
    /// 2000-01-01 (PostgreSQL's epoch for binary timestamps), both UTC.
    static let postgresEpochMicroseconds: Int64 = 946_684_800_000_000

    /// The element types this encoder writes.
    static let elementTypes: Set<PostgresDataType> = [.text, .bytea, .int2, .int4, .int8, .timestamptz, .jsonb, .uuid]

    /// The binary array of `elements` as `elementType`, or nil when an
    /// element does not hold a value of that type's binary form.
    /// - Throws: ``PostgresError`` (`.invalidBind`, ``PostgresError/batchIndex``
    ///   the element) for text with a NUL character, which PostgreSQL text cannot hold.
    static func encode(_ elements: [PostgresBind], as elementType: PostgresDataType) throws(PostgresError) -> [UInt8]? {
        guard elementTypes.contains(elementType) else { return nil }
        var out: [UInt8] = []
        var hasNull = false
        var capacity = 20
        for element in elements {
            switch element.value {
            case .null: hasNull = true
            case .text(let text): capacity += 5 + text.utf8.count
            case .bytes(let bytes): capacity += 4 + bytes.count * (elementType == .bytea ? 1 : 2) + 2
            default: capacity += 40
            }
        }
        out.reserveCapacity(capacity)
        append(Int32(elements.isEmpty ? 0 : 1), to: &out) // dimensions (0: the empty array)
        append(Int32(hasNull ? 1 : 0), to: &out)
        append(Int32(bitPattern: elementType.rawValue), to: &out)
        if !elements.isEmpty {
            append(Int32(elements.count), to: &out)
            append(Int32(1), to: &out) // lower bound
        }
        for (index, element) in elements.enumerated() {
            do throws(PostgresError) {
                guard try appendElement(element.value, as: elementType, to: &out) else { return nil }
            } catch {
                var error = error
                error.message = "array element \(index + 1): \(error.message ?? "invalid")"
                error.batchIndex = index
                throw error
            }
        }
        // libpq's lengths are 32-bit (and the server takes at most 1 GB per message).
        guard out.count <= Int(Int32.max) else { throw PostgresError(.invalidBind, message: "array of \(out.count) bytes is too large") }
        return out
    }

    /// Appends one element (its length, then its bytes); false when its value has no binary form as `type`.
    private static func appendElement(
        _ value: PostgresBind.Value, as type: PostgresDataType, to out: inout [UInt8]
    ) throws(PostgresError)
        -> Bool
    {
        switch (type, value) {
        case (_, .null):
            append(Int32(-1), to: &out)
        case (.bytea, .bytes(let bytes)):
            try appendLength(bytes.count, to: &out)
            out.append(contentsOf: bytes)
        case (.timestamptz, .microseconds(let micros)):
            let (since2000, overflow) = micros.subtractingReportingOverflow(postgresEpochMicroseconds)
            guard !overflow else { return false }
            append(Int32(8), to: &out)
            append(since2000, to: &out)
        case (.int8, .integer(let integer)):
            append(Int32(8), to: &out)
            append(integer, to: &out)
        case (.int4, .integer(let integer)):
            guard let narrow = Int32(exactly: integer) else { return false }
            append(Int32(4), to: &out)
            append(narrow, to: &out)
        case (.int2, .integer(let integer)):
            guard let narrow = Int16(exactly: integer) else { return false }
            append(Int32(2), to: &out)
            append(narrow, to: &out)
        case (.uuid, .uuid(let bytes)) where bytes.count == 16:
            append(Int32(16), to: &out)
            out.append(contentsOf: bytes)
        case (.jsonb, .text(let text)):
            try appendText(text, version: 1, to: &out)
        case (.text, .binaryArray):
            return false
        case (.text, _):
            // The text form, exactly the characters a text-format bind would send.
            guard let text = value.text else { return false }
            try appendText(text, version: nil, to: &out)
        default:
            return false
        }
        return true
    }

    /// Text's UTF-8 bytes, after `jsonb`'s format version byte when given.
    private static func appendText(_ text: String, version: UInt8?, to out: inout [UInt8]) throws(PostgresError) {
        var text = text
        let hasNUL = text.withUTF8 { bytes in bytes.baseAddress.map { memchr($0, 0, bytes.count) != nil } ?? false }
        if hasNUL { throw PostgresError(.invalidBind, message: "contains a NUL character") }
        try appendLength(text.utf8.count + (version == nil ? 0 : 1), to: &out)
        if let version { out.append(version) }
        text.withUTF8 { out.append(contentsOf: $0) }
    }

    /// An element's length; the format counts in 32 bits.
    private static func appendLength(_ count: Int, to out: inout [UInt8]) throws(PostgresError) {
        guard let length = Int32(exactly: count) else { throw PostgresError(.invalidBind, message: "\(count) bytes, too large") }
        append(length, to: &out)
    }

    /// A fixed-width integer in network byte order.
    private static func append<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { out.append(contentsOf: $0) }
    }
}
