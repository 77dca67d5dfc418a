import Foundation

/// One schema change: a version number, a name, and the SQL to run once.
public struct PostgresMigration: Sendable, Hashable {
    /// Ordering key; each version is applied once.
    public var version: Int
    /// A short description, recorded with the version.
    public var name: String
    /// Trusted SQL, possibly several statements.
    public var sql: String

    /// Creates a migration.
    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// Largest migration file read from disk.
    public static let maximumFileSize = 10 * 1024 * 1024

    /// Loads `*.sql` files named `<number>_<name>.sql` (e.g. `001_create_orders.sql`),
    /// sorted by the number's value, so `10_` comes after `9_`.
    /// - Parameter directory: the folder to read.
    /// - Throws: ``PostgresError`` of kind `.migration` for a file without a
    ///   numeric prefix, an oversized file, or a duplicate version; file-system errors.
    public static func load(directory: String) throws -> [PostgresMigration] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".sql") }
        var migrations: [PostgresMigration] = []
        for file in names {
            let stem = file.dropLast(".sql".count)
            let digits = stem.prefix(while: { $0.isASCII && $0.isNumber })
            guard let version = Int(digits) else {
                throw PostgresError(.migration, message: "migration file \(file) has no numeric prefix")
            }
            var name = stem.dropFirst(digits.count)
            if name.first == "_" || name.first == "-" { name = name.dropFirst() }
            let path = (directory as NSString).appendingPathComponent(file)
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            guard data.count <= maximumFileSize else {
                throw PostgresError(.migration, message: "migration file \(file) is larger than \(maximumFileSize) bytes")
            }
            guard let sql = String(data: data, encoding: .utf8) else {
                throw PostgresError(.migration, message: "migration file \(file) is not UTF-8")
            }
            migrations.append(PostgresMigration(version: version, name: String(name), sql: sql))
        }
        return migrations.sorted { $0.version < $1.version }
    }
}
