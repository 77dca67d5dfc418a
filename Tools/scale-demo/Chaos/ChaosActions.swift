import Foundation

/// The faults' actions on the running stack: signals to the broker's
/// process, and `stack.sh` for the restarts (the projector kill is
/// ``ProjectorFailover``, shared with the scale demo).
struct ChaosActions: Sendable {
    let stateDirectory: String
    let stackScript: String

    struct Failure: Error, CustomStringConvertible { let description: String }

    /// The Tansu broker's pid (`STATE_DIR/tansu.pid`, written by `scripts/tansu.sh`).
    func brokerPID() throws -> pid_t {
        let file = "\(stateDirectory)/tansu.pid"
        guard let text = try? String(contentsOfFile: file, encoding: .utf8),
            let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0
        else {
            throw Failure(description: "no pid in \(file): is the broker running?")
        }
        return pid
    }

    /// Sends `signal` to `pid`.
    func send(_ signal: Int32, to pid: pid_t, name: String) throws {
        guard Glibc.kill(pid, signal) == 0 else {
            throw Failure(description: "kill -\(signal) \(pid) (\(name)) failed: errno \(errno)")
        }
    }

    /// `stack.sh restart-postgres STATE_DIR`; returns its output.
    func restartPostgres() async throws -> String {
        try await stack(["restart-postgres", stateDirectory], output: "restart-postgres.out")
    }

    /// `stack.sh restart-receiver STATE_DIR N`; returns how long the receiver took to exit after SIGTERM, if it said.
    func restartReceiver(_ number: Int) async throws -> (stoppedAfter: Double?, output: String) {
        let text = try await stack(["restart-receiver", stateDirectory, String(number)], output: "restart-receiver-\(number).out")
        // "webhook-receiver-N stopped after 1.2 s"
        let stopped = text.split(separator: "\n").first { $0.contains(" stopped after ") }
            .flatMap { $0.split(separator: " ").dropLast().last }.flatMap { Double($0) }
        return (stopped, text)
    }

    private func stack(_ arguments: [String], output name: String) async throws -> String {
        let output = "\(stateDirectory)/\(name)"
        let status = await ChildProcess.run(stackScript, arguments, output: output)
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw Failure(description: "stack.sh \(arguments[0]) failed (wait status \(status)): \(text.suffix(2000))")
        }
        return text
    }
}
