import Foundation
import Synchronization

/// Runs the project's shell scripts from tests (starting private servers,
/// stopping a broker). Uses posix_spawn and waitpid on a dispatch thread:
/// Foundation's `Process` on this platform was seen to leave the child
/// unreaped inside the test process, so `waitUntilExit` never returned.
public enum ScriptRunner {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// The checkout's `scripts/` folder, from `STOREFRONT_SCRIPTS` (set by `make test`).
    public static func scriptsFolder() throws -> String {
        try TestEnvironment.scriptsFolder()
    }

    /// Runs `scripts/<name>` with `arguments` and extra environment; throws unless it exits 0.
    /// Standard output is discarded unless `outputFile` names a file to append it to.
    public static func runScript(
        _ name: String, _ arguments: [String], environment: [String: String] = [:],
        outputFile: String? = nil
    ) async throws {
        try await run(try scriptsFolder() + "/" + name, arguments, environment: environment, outputFile: outputFile)
    }

    /// - Parameter inputFile: the child's standard input (inherited when nil).
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        outputFile: String? = nil, inputFile: String? = nil
    ) async throws {
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { _, new in new }
        let argv = [executable] + arguments
        let envp = merged.map { "\($0.key)=\($0.value)" }
        let status: Int32 = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var actions = posix_spawn_file_actions_t()
                posix_spawn_file_actions_init(&actions)
                defer { posix_spawn_file_actions_destroy(&actions) }
                posix_spawn_file_actions_addopen(&actions, 1, outputFile ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o644)
                if let inputFile { posix_spawn_file_actions_addopen(&actions, 0, inputFile, O_RDONLY, 0) }
                var cArguments = argv.map { strdup($0) } + [nil]
                var cEnvironment = envp.map { strdup($0) } + [nil]
                defer {
                    cArguments.forEach { free($0) }
                    cEnvironment.forEach { free($0) }
                }
                var pid: pid_t = 0
                let spawned = ChildProcess.spawnLock.withLock { _ in posix_spawn(&pid, executable, &actions, nil, &cArguments, &cEnvironment) }
                guard spawned == 0 else {
                    continuation.resume(returning: -1)
                    return
                }
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
                continuation.resume(returning: status)
            }
        }
        guard status == 0 else {
            throw Failure(description: "\(argv.joined(separator: " ")) failed (wait status \(status))")
        }
    }
}
