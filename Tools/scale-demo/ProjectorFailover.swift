import Foundation

/// Kills one projector with SIGKILL and starts another through
/// `stack.sh add-projector`, both processes of the stack this demo runs on.
struct ProjectorFailover: Sendable {
    let stateDirectory: String
    let stackScript: String
    let victim: Int

    struct Failure: Error, CustomStringConvertible { let description: String }

    /// Sends SIGKILL to `subscription-projector-<victim>` and removes its pid file
    /// (so `stack.sh down` never signals a recycled pid).
    /// - Throws: ``Failure`` when the pid file is missing or the process is gone.
    func kill() throws -> pid_t {
        let file = "\(stateDirectory)/pids/subscription-projector-\(victim).pid"
        guard let text = try? String(contentsOfFile: file, encoding: .utf8),
            let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0
        else {
            throw Failure(description: "no pid in \(file): is subscription-projector-\(victim) running?")
        }
        guard Glibc.kill(pid, SIGKILL) == 0 else {
            throw Failure(description: "kill -KILL \(pid) (subscription-projector-\(victim)) failed: errno \(errno)")
        }
        try? FileManager.default.removeItem(atPath: file)
        return pid
    }

    /// Runs `stack.sh add-projector STATE_DIR` and returns its output line
    /// ("subscription-projector-N URL"); the script returns once the new projector is ready.
    /// - Throws: ``Failure`` when the script fails.
    func startReplacement() async throws -> String {
        let output = "\(stateDirectory)/add-projector.out"
        let status = await ChildProcess.run(stackScript, ["add-projector", stateDirectory], output: output)
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status == 0 else { throw Failure(description: "stack.sh add-projector failed (wait status \(status)): \(text.suffix(2000))") }
        return text.split(separator: "\n").last.map(String.init) ?? ""
    }
}

/// Runs a child process with posix_spawn and reaps it with waitpid on a
/// dispatch thread (never blocking the cooperative pool).
enum ChildProcess {
    /// Runs `executable` with `arguments`; stdout and stderr go to `output`. Returns the wait status (-1: not started).
    static func run(_ executable: String, _ arguments: [String], output: String) async -> Int32 {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var actions = posix_spawn_file_actions_t()
                posix_spawn_file_actions_init(&actions)
                defer { posix_spawn_file_actions_destroy(&actions) }
                posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                posix_spawn_file_actions_adddup2(&actions, 1, 2)
                var argv = ([executable] + arguments).map { strdup($0) } + [nil]
                defer { argv.forEach { free($0) } }
                var pid: pid_t = 0
                guard posix_spawn(&pid, executable, &actions, nil, &argv, environ) == 0 else {
                    continuation.resume(returning: -1)
                    return
                }
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
                continuation.resume(returning: status)
            }
        }
    }
}
