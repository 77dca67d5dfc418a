import Foundation
import TestSupport
import Testing
@testable import Postgres

enum TestDatabase {
    /// The shared server's URL from DATABASE_URL; the test fails when it is unset.
    static func url() throws -> String {
        try TestEnvironment.databaseURL()
    }

    static func configuration() throws -> PostgresConfiguration {
        try PostgresConfiguration(url: url())
    }

    static func connect() async throws -> PostgresConnection {
        try await PostgresConnection.connect(configuration())
    }

    /// A table name unique to this test run, since suites run in parallel.
    static func uniqueName(_ prefix: String) -> String {
        "\(prefix)_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased())"
    }
}

/// A PostgreSQL cluster of our own (via scripts/pg.sh), for tests that
/// restart the server without disturbing the shared one.
struct PrivateCluster {
    let directory: String
    let url: String

    static func start() async throws -> PrivateCluster {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent(TestDatabase.uniqueName("pgtest")).path
        try await ScriptRunner.runScript("pg.sh", ["start", directory])
        return PrivateCluster(directory: directory, url: try TestEnvironment.setting("DATABASE_URL", inEnvFile: directory + "/pg.env"))
    }

    func restart() async throws { try await ScriptRunner.runScript("pg.sh", ["restart", directory]) }

    func stop() async { try? await ScriptRunner.runScript("pg.sh", ["stop", directory]) }
}

/// A one-shot signal between tasks.
actor Gate {
    private var opened = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    var isOpen: Bool { opened }

    func open() {
        opened = true
        waiters.forEach { $0.resume() }
        waiters = []
    }

    func wait() async {
        if opened { return }
        await withCheckedContinuation { waiters.append($0) }
    }
}

/// Expects `body` to throw a PostgresError and returns it.
func expectPostgresError(
    _ body: () async throws -> Void,
    sourceLocation: SourceLocation = #_sourceLocation
) async -> PostgresError? {
    do {
        try await body()
        Issue.record("expected a PostgresError, got success", sourceLocation: sourceLocation)
    } catch let error as PostgresError {
        return error
    } catch {
        Issue.record("expected a PostgresError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
