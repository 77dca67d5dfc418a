import Foundation
import Postgres

/// A new, empty database on the `DATABASE_URL` server for one suite or test,
/// since suites run in parallel against the same server.
public enum FreshDatabase {
    public struct Missing: Error, CustomStringConvertible {
        public let description: String
    }

    /// Creates `<prefix>_<random>` and returns a pool on it and its URL.
    public static func create(prefix: String, maximumConnections: Int = 4) async throws -> (pool: PostgresPool, url: String) {
        let url = try TestEnvironment.databaseURL()
        let name = "\(prefix)_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased())"
        let server = try PostgresConfiguration(url: url)
        let admin = try await PostgresConnection.connect(server)
        do {
            try await admin.execute("CREATE DATABASE \(identifier: name)")
        } catch {
            await admin.close()
            throw error
        }
        await admin.close()
        var configuration = server
        configuration.database = name
        guard var components = URLComponents(string: url) else { throw Missing(description: "DATABASE_URL is not a URL") }
        components.path = "/" + name
        return (PostgresPool(configuration: configuration, options: .init(maximumConnections: maximumConnections)), components.string ?? url)
    }
}
