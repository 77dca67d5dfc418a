import Foundation

/// What the provider phase's faults do to the running stack: kill and start
/// the broker (`scripts/tansu.sh`, same port), and switch the PostgreSQL
/// proxy that `stack.sh` puts between the services and PostgreSQL
/// (`STACK_PG_PROXY=1`, `scripts/pg-blackhole-proxy.py`) into a black hole and back.
struct ProviderFaultActions: Sendable {
    let stateDirectory: String
    /// `scripts/tansu.sh`, beside the stack script.
    let brokerScript: String
    let base: ChaosActions

    init(stateDirectory: String, stackScript: String) {
        self.stateDirectory = stateDirectory
        brokerScript = (stackScript as NSString).deletingLastPathComponent + "/tansu.sh"
        base = ChaosActions(stateDirectory: stateDirectory, stackScript: stackScript)
    }

    /// SIGKILLs the broker (nothing it held survives: memory storage) and waits until it is gone.
    func killBroker() async throws -> pid_t {
        let pid = try base.brokerPID()
        try base.send(SIGKILL, to: pid, name: "tansu")
        while Glibc.kill(pid, 0) == 0 { try? await Task.sleep(for: .milliseconds(50)) }
        return pid
    }

    /// Starts an empty broker on the port the stack's services were given (`kafka.env`).
    func startBroker(port: String) async throws {
        let output = "\(stateDirectory)/broker-restart.out"
        // A killed listener's port can take a moment to be free again.
        for attempt in 1...50 {
            let status = await ChildProcess.run(brokerScript, ["start", stateDirectory, port], output: output)
            if status == 0 { return }
            if attempt == 50 {
                let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
                throw ChaosActions.Failure(description: "tansu.sh start failed (wait status \(status)): \(text.suffix(1000))")
            }
            try? await Task.sleep(for: .milliseconds(200))
        }
    }

    /// The PostgreSQL proxy's pid (`pids/pg-proxy.pid`, written by `stack.sh up` with `STACK_PG_PROXY=1`).
    func proxyPID() throws -> pid_t {
        let file = "\(stateDirectory)/pids/pg-proxy.pid"
        guard let text = try? String(contentsOfFile: file, encoding: .utf8),
            let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0
        else {
            throw ChaosActions.Failure(description: "no pid in \(file): start the stack with STACK_PG_PROXY=1")
        }
        return pid
    }

    /// Stops (SIGUSR1) or resumes (SIGUSR2) forwarding between the services and PostgreSQL.
    func blackHole(_ on: Bool) throws {
        try base.send(on ? SIGUSR1 : SIGUSR2, to: try proxyPID(), name: "pg-blackhole-proxy")
    }
}
