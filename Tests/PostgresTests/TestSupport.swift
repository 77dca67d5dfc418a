import Foundation
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

    static func scripts() throws -> String {
        guard let path = ProcessInfo.processInfo.environment["STOREFRONT_SCRIPTS"], !path.isEmpty else {
            let error = MissingEnvironment(name: "STOREFRONT_SCRIPTS",
                                           hint: "set it to the checkout's scripts/ folder (make test does this)")
            Issue.record("\(error)")
            throw error
        }
        return path
    }

    static func start() async throws -> PrivateCluster {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent(TestDatabase.uniqueName("pgtest")).path
        try await run(scripts() + "/pg.sh", ["start", directory])
        let env = try String(contentsOfFile: directory + "/pg.env", encoding: .utf8)
        guard let line = env.split(separator: "\n").first(where: { $0.hasPrefix("export DATABASE_URL=") }) else {
            throw MissingEnvironment(name: "DATABASE_URL in \(directory)/pg.env", hint: "pg.sh did not write it")
        }
        return PrivateCluster(directory: directory, url: String(line.dropFirst("export DATABASE_URL=".count)))
    }

    func restart() async throws { try await Self.run(Self.scripts() + "/pg.sh", ["restart", directory]) }

    func stop() async { try? await Self.run(Self.scripts() + "/pg.sh", ["stop", directory]) }

    /// Runs a script and waits for it on a dispatch thread, not a cooperative one.
    /// Uses posix_spawn and waitpid directly: Foundation's `Process` on this
    /// platform left the child unreaped and never called its termination handler.
    static func run(_ executable: String, _ arguments: [String]) async throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw MissingEnvironment(name: executable, hint: "could not be started (errno \(spawned))")
        }
        let child = pid
        let status: Int32 = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var status: Int32 = 0
                while waitpid(child, &status, 0) == -1 && errno == EINTR {}
                continuation.resume(returning: status)
            }
        }
        guard status == 0 else {
            throw MissingEnvironment(name: "\(executable) \(arguments.joined(separator: " "))", hint: "exited with status \(status)")
        }
    }
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
