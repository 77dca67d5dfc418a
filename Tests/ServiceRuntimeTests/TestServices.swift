import Foundation
import Synchronization
import Testing
import TestSupport
@testable import ServiceRuntime

/// Records lifecycle events from several tasks, in order.
final class Recorder: Sendable {
    private let storage = Mutex<[String]>([])

    func record(_ event: String) { storage.withLock { $0.append(event) } }
    var events: [String] { storage.withLock { $0 } }

    /// Polls until `count` events were recorded (bounded, so a bug fails the
    /// test instead of hanging it).
    func waitFor(count: Int) async throws {
        for _ in 0..<1000 where events.count < count {
            try await Task.sleep(for: .milliseconds(10))
        }
        try #require(events.count >= count, "only \(events) were recorded")
    }
}

struct Boom: Error, CustomStringConvertible {
    var description: String { "boom" }
}

/// Runs until cancelled, recording its start and stop.
struct SleepingService: Service {
    let name: String
    let recorder: Recorder
    var signalsReadiness: Bool { true }

    func run() async throws {
        recorder.record("start \(name)")
        ServiceStartup.markReady()
        do {
            try await Task.sleep(for: .seconds(3600))
        } catch {
            recorder.record("stop \(name)")
            throw error
        }
    }
}

/// Starts, then throws or returns once the test opens its gate.
struct EndingService: Service {
    let name: String
    let recorder: Recorder
    let gate: Gate
    let throwsError: Bool
    var signalsReadiness: Bool { true }

    func run() async throws {
        recorder.record("start \(name)")
        ServiceStartup.markReady()
        await gate.wait()
        recorder.record("end \(name)")
        if throwsError { throw Boom() }
    }
}

/// Ignores cancellation until the test opens its gate.
struct StubbornService: Service {
    let name: String
    let recorder: Recorder
    let gate: Gate

    func run() async throws {
        recorder.record("start \(name)")
        await gate.wait()
        recorder.record("stop \(name)")
    }
}
