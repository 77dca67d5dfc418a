import Foundation
import TestSupport
import Testing
@testable import Postgres

/// A required environment variable was missing; the test fails, never skips.
struct MissingEnvironment: Error, CustomStringConvertible {
    let name: String
    let hint: String
    var description: String { "\(name) is not set: \(hint)" }
}

enum TestDatabase {
    /// The shared server's URL from DATABASE_URL; records a failure when unset.
    static func url() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["DATABASE_URL"], !url.isEmpty else {
            let error = MissingEnvironment(name: "DATABASE_URL",
                                           hint: "start PostgreSQL with scripts/pg.sh and source its pg.env, or run `make test`")
            Issue.record("\(error)")
            throw error
        }
        return url
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
        let env = try String(contentsOfFile: directory + "/pg.env", encoding: .utf8)
        guard let line = env.split(separator: "\n").first(where: { $0.hasPrefix("export DATABASE_URL=") }) else {
            throw MissingEnvironment(name: "DATABASE_URL in \(directory)/pg.env", hint: "pg.sh did not write it")
        }
        return PrivateCluster(directory: directory, url: String(line.dropFirst("export DATABASE_URL=".count)))
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
func expectPostgresError(_ body: () async throws -> Void,
                         sourceLocation: SourceLocation = #_sourceLocation) async -> PostgresError? {
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
