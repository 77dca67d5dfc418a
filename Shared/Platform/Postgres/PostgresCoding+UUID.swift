import Foundation

extension UUID: PostgresEncodable, PostgresDecodable {
    /// Sent as `uuid`.
    public static var postgresDataType: PostgresDataType { .uuid }
    /// The canonical hyphenated form.
    public var postgresBind: PostgresBind {
        let u = uuid
        return PostgresBind(
            dataType: .uuid, value: .uuid([u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7, u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15]))
    }
    /// From `uuid`.
    public static func decode(text: String, type: PostgresDataType) throws(PostgresDecodingFailure) -> UUID {
        guard type == .uuid else { throw .typeMismatch(type) }
        guard let uuid = UUID(uuidString: text) else { throw .malformed(type) }
        return uuid
    }
}

/// A UUID's text form from its 16 bytes: upper-case hex in 8-4-4-4-12
/// groups, as `UUID.uuidString` writes it (PostgreSQL reads either case).
enum UUIDText {
    private static let digits = Array("0123456789ABCDEF".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { out.append(UInt8(ascii: "-")) }
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
