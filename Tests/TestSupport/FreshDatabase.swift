import Foundation
import Postgres

/// A new, empty database on the `DATABASE_URL` server for one suite or test,
/// since suites run in parallel against the same server.
public enum FreshDatabase {
    public struct Missing: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs `body` with a pool on a new database `<prefix>_<random>` and its
    /// URL, then closes the pool and drops the database (`WITH (FORCE)`, so
    /// connections the body left open do not keep it), also when `body` throws.
    public static func with<T>(
        prefix: String, maximumConnections: Int = 4, isolation: isolated (any Actor)? = #isolation,
        _ body: (_ pool: PostgresPool, _ url: String) async throws -> T
    ) async throws -> T {
        let (pool, url, name) = try await create(prefix: prefix, maximumConnections: maximumConnections)
        let result: T
        do {
            result = try await body(pool, url)
        } catch {
            await pool.close()
            try? await drop(name)
            throw error
        }
        await pool.close()
        try await drop(name)
        return result
    }

    /// Creates `<prefix>_<random>` and returns a pool on it, its URL and its name.
    private static func create(prefix: String, maximumConnections: Int) async throws -> (pool: PostgresPool, url: String, name: String) {
        let url = try TestEnvironment.databaseURL()
        let name = "\(prefix)_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased())"
        let server = try PostgresConfiguration(url: url)
        try await administer { try await $0.execute("CREATE DATABASE \(identifier: name)") }
        var configuration = server
        configuration.database = name
        guard var components = URLComponents(string: url) else { throw Missing(description: "DATABASE_URL is not a URL") }
        components.path = "/" + name
        let pool = PostgresPool(configuration: configuration, options: .init(maximumConnections: maximumConnections))
        return (pool, components.string ?? url, name)
    }

    private static func drop(_ name: String) async throws {
        try await administer { try await $0.execute("DROP DATABASE IF EXISTS \(identifier: name) WITH (FORCE)") }
    }

    /// Runs `statement` on a connection to `DATABASE_URL`'s own database.
    private static func administer(_ statement: (PostgresConnection) async throws -> Void) async throws {
        let admin = try await PostgresConnection.connect(try PostgresConfiguration(url: try TestEnvironment.databaseURL()))
        do {
            try await statement(admin)
        } catch {
            await admin.close()
            throw error
        }
        await admin.close()
    }
}
