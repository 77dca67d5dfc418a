import Foundation

extension UUID: PostgresEncodable, PostgresDecodable {
    /// Sent as `uuid`.
    public static var postgresDataType: PostgresDataType { .uuid }
    /// The canonical hyphenated form.
    public var postgresBind: PostgresBind { PostgresBind(dataType: .uuid, text: uuidString) }
    /// From `uuid`.
    public static func decode(text: String, type: PostgresDataType) throws(PostgresDecodingFailure) -> UUID {
        guard type == .uuid else { throw .typeMismatch(type) }
        guard let uuid = UUID(uuidString: text) else { throw .malformed(type) }
        return uuid
    }
}
