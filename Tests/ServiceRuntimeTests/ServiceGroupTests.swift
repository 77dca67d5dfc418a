import Foundation
import Testing
import TestSupport
import Telemetry
@testable import ServiceRuntime

@Suite struct ServiceGroupTests {
    /// No signal handling: other suites share this process.
    func makeGroup(_ services: [any Service], sink: CapturingLogSink = CapturingLogSink(), stopTimeout: Duration = .seconds(10)) -> ServiceGroup {
        ServiceGroup(services: services, configuration: .init(stopTimeout: stopTimeout, signals: []), logger: Logger(service: "test", sink: sink))
    }

    @Test func startsInOrderAndStopsInReverse() async throws {
        let recorder = Recorder()
        let sink = CapturingLogSink()
        let group = makeGroup(["a", "b", "c"].map { SleepingService(name: $0, recorder: recorder) }, sink: sink)
        let running = Task { try await group.run() }
        try await recorder.waitFor(count: 3)
        group.triggerGracefulShutdown(reason: "test")
        try await running.value
        #expect(recorder.events == ["start a", "start b", "start c", "stop c", "stop b", "stop a"])
        let messages = sink.lines.filter { $0.contains("\"service.name\"") }
        #expect(messages.filter { $0.contains("\"message\":\"starting service\"") }.count == 3)
        #expect(messages.filter { $0.contains("\"message\":\"service stopped\"") }.count == 3)
        #expect(sink.lines.contains { $0.contains("graceful shutdown") && $0.contains("\"reason\":\"test\"") })
    }

    @Test func failingServiceStopsTheOthersAndRunThrows() async throws {
        let recorder = Recorder()
        let gate = Gate()
        let group = makeGroup([
            SleepingService(name: "a", recorder: recorder),
            EndingService(name: "b", recorder: recorder, gate: gate, throwsError: true),
            SleepingService(name: "c", recorder: recorder),
        ])
        let running = Task { try await group.run() }
        try await recorder.waitFor(count: 3)
        gate.open()
        await #expect {
            try await running.value
        } throws: { error in
            guard case ServiceGroupError.serviceFailed(let service, let underlying) = error else { return false }
            return service == "b" && underlying is Boom
        }
        #expect(recorder.events == ["start a", "start b", "start c", "end b", "stop c", "stop a"])
    }

    @Test func serviceReturningEarlyStopsTheGroup() async throws {
        let recorder = Recorder()
        let gate = Gate()
        let group = makeGroup([
            SleepingService(name: "a", recorder: recorder),
            EndingService(name: "b", recorder: recorder, gate: gate, throwsError: false),
        ])
        let running = Task { try await group.run() }
        try await recorder.waitFor(count: 2)
        gate.open()
        await #expect {
            try await running.value
        } throws: { error in
            guard case ServiceGroupError.serviceFinishedEarly(let service) = error else { return false }
            return service == "b"
        }
        #expect(recorder.events == ["start a", "start b", "end b", "stop a"])
    }

    @Test func failureDuringStartupStopsServicesAlreadyStarted() async throws {
        struct FailsAtOnce: Service {
            let name = "broken"
            var signalsReadiness: Bool { true }
            func run() async throws { throw Boom() }
        }
        let recorder = Recorder()
        let group = makeGroup([SleepingService(name: "a", recorder: recorder), FailsAtOnce(), SleepingService(name: "never", recorder: recorder)])
        await #expect(throws: ServiceGroupError.self) { try await group.run() }
        #expect(recorder.events == ["start a", "stop a"])
    }

    @Test func serviceOverrunningItsStopDeadlineIsAbandoned() async throws {
        let recorder = Recorder()
        let gate = Gate()
        let group = makeGroup(
            [
                SleepingService(name: "a", recorder: recorder),
                StubbornService(name: "stubborn", recorder: recorder, gate: gate),
            ], stopTimeout: .milliseconds(100))
        let running = Task { try await group.run() }
        try await recorder.waitFor(count: 2)
        group.triggerGracefulShutdown()
        await #expect {
            try await running.value
        } throws: { error in
            guard case ServiceGroupError.shutdownIncomplete(let problems) = error else { return false }
            return problems == ["stubborn did not stop within 0.1 seconds"]
        }
        #expect(recorder.events.suffix(1) == ["stop a"], "the next service is still stopped")
        gate.open()
    }

    @Test func cancellingTheRunningTaskStopsGracefully() async throws {
        let recorder = Recorder()
        let group = makeGroup([SleepingService(name: "a", recorder: recorder), SleepingService(name: "b", recorder: recorder)])
        let running = Task { try await group.run() }
        try await recorder.waitFor(count: 2)
        running.cancel()
        try await running.value
        #expect(recorder.events == ["start a", "start b", "stop b", "stop a"])
    }

    @Test func shutdownBeforeRunStartsNothingAndRunIsOnce() async throws {
        let recorder = Recorder()
        let group = makeGroup([SleepingService(name: "a", recorder: recorder)])
        group.triggerGracefulShutdown()
        try await group.run()
        #expect(recorder.events.isEmpty)
        await #expect(throws: ServiceGroupError.self) { try await group.run() }
    }

    @Test func servicesWithoutReadinessSignalAllStart() async throws {
        let recorder = Recorder()
        let gates = [Gate(), Gate()]
        let group = makeGroup(gates.enumerated().map { StubbornService(name: "s\($0.offset)", recorder: recorder, gate: $0.element) })
        let running = Task { try await group.run() }
        try await recorder.waitFor(count: 2)
        group.triggerGracefulShutdown()
        gates[1].open()
        gates[0].open()
        try await running.value
        #expect(Set(recorder.events) == ["start s0", "start s1", "stop s0", "stop s1"])
    }
}
