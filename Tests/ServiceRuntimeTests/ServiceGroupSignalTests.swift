import Foundation
import TestSupport
import Testing
import Telemetry
@testable import ServiceRuntime

/// Sends a real SIGTERM, but only to a child process: this test binary
/// re-runs itself with a filter selecting ``signalChild()``, which installs
/// the group's signal handling and signals its own process. The test runner
/// itself never receives a signal and never changes its signal dispositions.
@Suite struct ServiceGroupSignalTests {
    static let resultVariable = "SERVICE_RUNTIME_SIGNAL_CHILD_RESULT"
    static var isChild: Bool { ProcessInfo.processInfo.environment[resultVariable] != nil }

    @Test func sigtermStopsTheGroupGracefullyInAChildProcess() async throws {
        let result = FileManager.default.temporaryDirectory.appendingPathComponent("signal-child-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: result) }
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var environment = ProcessInfo.processInfo.environment
        environment[Self.resultVariable] = result.path
        let child = try ChildProcess.spawn(
            [executable, "--testing-library", "swift-testing", "--filter", "ServiceGroupSignalTests/signalChild"],
            environment: environment, mergeStandardError: true)
        try? child.standardInput.close()
        async let output = ChildProcess.readAll(child.standardOutput)
        let status = await Self.wait(for: child, timeout: .seconds(60))
        let childOutput = String(decoding: await output, as: UTF8.self)
        try #require(status == .exited(0), "child output:\n\(childOutput.suffix(3000))")
        let recorded = try String(contentsOf: result, encoding: .utf8)
        #expect(recorded == "start a\nstart b\nstop b\nstop a\nreturned\n", "child output:\n\(childOutput.suffix(3000))")
        #expect(childOutput.contains("\"reason\":\"SIGTERM\""))
    }

    /// Not a test on its own: the body of the child process above, selected
    /// by filter and enabled only through the result variable it writes to.
    @Test(.enabled(if: isChild, "runs only as the child process of sigtermStopsTheGroupGracefullyInAChildProcess"))
    func signalChild() async throws {
        let path = try #require(ProcessInfo.processInfo.environment[Self.resultVariable])
        let recorder = Recorder()
        let group = ServiceGroup(
            services: [SleepingService(name: "a", recorder: recorder), SleepingService(name: "b", recorder: recorder)],
            configuration: .init(stopTimeout: .seconds(10), signals: [SIGTERM]),
            logger: Logger(service: "signal-child")
        )
        let running = Task { try await group.run() }
        try await recorder.waitFor(count: 2)
        kill(getpid(), SIGTERM)
        try await running.value
        recorder.record("returned")
        try Data((recorder.events.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
    }

    enum Status: Equatable {
        case exited(Int32), signalled(Int32), timedOut
    }

    /// Waits for `child` off the cooperative pool, killing it if it outlives `timeout`.
    static func wait(for child: ChildProcess, timeout: Duration) async -> Status {
        let outcome = await raceAgainstDeadline(timeout) { await child.wait() }
        guard case .finished(.success(let status)) = outcome else {
            child.signal(SIGKILL)
            _ = await child.wait()
            return .timedOut
        }
        if let code = ChildProcess.exitCode(status) { return .exited(code) }
        return .signalled(status & 0x7f)
    }
}
