import Foundation

// `bytea` travels as hex text (`\x0a1b...`); every session sets
// `bytea_output=hex`, so the escape format never has to be parsed.

enum ByteaHex {
    private static let digits = Array("0123456789abcdef".utf8)

    static func encode<C: Collection<UInt8>>(_ bytes: C) -> String {
        var out = [UInt8]()
        out.reserveCapacity(2 + bytes.count * 2)
        out.append(UInt8(ascii: "\\"))
        out.append(UInt8(ascii: "x"))
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x"), utf8.count % 2 == 0 else {
            return nil
        }
        var out = [UInt8]()
        out.reserveCapacity((utf8.count - 2) / 2)
        var index = 2
        while index < utf8.count {
            guard let high = hexValue(utf8[index]), let low = hexValue(utf8[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }
}

extension Data: PostgresEncodable, PostgresDecodable {
    /// Sent as `bytea`.
    public static var postgresDataType: PostgresDataType { .bytea }
    /// Hex text.
    public var postgresBind: PostgresBind { PostgresBind(dataType: .bytea, value: .bytes(Array(self))) }
    /// From `bytea`.
    public static func decode(text: String, type: PostgresDataType) throws(PostgresDecodingFailure) -> Data {
        guard type == .bytea else { throw .typeMismatch(type) }
        guard let bytes = ByteaHex.decode(text) else { throw .malformed(type) }
        return Data(bytes)
    }
}

extension Array: PostgresEncodable, PostgresDecodable where Element == UInt8 {
    /// Sent as `bytea`.
    public static var postgresDataType: PostgresDataType { .bytea }
    /// Hex text.
    public var postgresBind: PostgresBind { PostgresBind(dataType: .bytea, value: .bytes(self)) }
    /// From `bytea`.
    public static func decode(text: String, type: PostgresDataType) throws(PostgresDecodingFailure) -> [UInt8] {
        guard type == .bytea else { throw .typeMismatch(type) }
        guard let bytes = ByteaHex.decode(text) else { throw .malformed(type) }
        return bytes
    }
}
