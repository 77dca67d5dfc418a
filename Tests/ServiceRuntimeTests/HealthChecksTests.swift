import Foundation
import Synchronization
import Testing
import TestSupport
@testable import ServiceRuntime

struct DependencyDown: Error, CustomStringConvertible {
    var description: String { "connect to postgres://app:hunter2@db:5432/app failed\nsecond line" }
}

@Suite struct HealthChecksTests {
    func json(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func allChecksPassingIsReady() async throws {
        let health = HealthChecks()
        health.register("postgres") {}
        health.register("kafka") { try await Task.sleep(for: .milliseconds(5)) }
        let report = await health.readiness()
        #expect(report.ok)
        #expect(report.httpStatus == 200)
        #expect(report.checks.map(\.name) == ["postgres", "kafka"])
        #expect(report.checks.allSatisfy { $0.ok && $0.error == nil })
        let body = try json(report.jsonBody())
        #expect(body["status"] as? String == "ok")
        #expect(body["failing"] == nil)
        #expect((body["checks"] as? [[String: Any]])?.count == 2)
        #expect(health.liveness().httpStatus == 200)
        #expect(String(decoding: health.liveness().jsonBody(), as: UTF8.self) == #"{"status":"ok"}"#)
    }

    @Test func noChecksIsReady() async {
        #expect(await HealthChecks().readiness().ok)
    }

    @Test func oneFailingCheckMakesItUnavailable() async throws {
        let health = HealthChecks()
        health.register("postgres") { throw DependencyDown() }
        health.register("kafka") {}
        let report = await health.readiness()
        #expect(!report.ok)
        #expect(report.httpStatus == 503)
        #expect(report.failing == ["postgres"])
        let failed = try #require(report.checks.first)
        #expect(failed.error == "connect to postgres://<redacted>@db:5432/app failed")
        let body = try json(report.jsonBody())
        #expect(body["status"] as? String == "unavailable")
        #expect(body["failing"] as? [String] == ["postgres"])
        let checks = try #require(body["checks"] as? [[String: Any]])
        #expect(checks.map { $0["name"] as? String } == ["postgres", "kafka"])
        #expect(checks.map { $0["ok"] as? Bool } == [false, true])
        #expect(checks.allSatisfy { $0["duration_seconds"] is Double })
        #expect(!String(decoding: report.jsonBody(), as: UTF8.self).contains("hunter2"))
    }

    @Test func hangingCheckTimesOutAndIsNotStartedTwice() async throws {
        let health = HealthChecks()
        let gate = Gate()
        let calls = Mutex(0)
        health.register("stuck", timeout: .milliseconds(100)) {
            let call = calls.withLock {
                $0 += 1; return $0
            }
            if call == 1 { await gate.wait() } // ignores cancellation
        }
        health.register("fine") {}

        let first = await health.readiness()
        #expect(first.failing == ["stuck"])
        #expect(first.checks[0].error == "timed out after 0.1 seconds")
        #expect(first.checks[1].ok)

        // The abandoned run still hangs: report it without starting another.
        let second = await health.readiness()
        #expect(second.failing == ["stuck"])
        #expect(second.checks[0].error?.hasPrefix("previous run still running") == true)
        #expect(calls.withLock { $0 } == 1)

        gate.open()
        var third = await health.readiness()
        for _ in 0..<200 where !third.ok {
            try await Task.sleep(for: .milliseconds(10))
            third = await health.readiness()
        }
        #expect(third.ok, "once the hung run finished the check runs again")
    }

    @Test func checkThatHonoursCancellationAlsoTimesOut() async {
        let health = HealthChecks(defaultTimeout: .milliseconds(50))
        health.register("sleepy") { try await Task.sleep(for: .seconds(3600)) }
        let report = await health.readiness()
        #expect(report.failing == ["sleepy"])
        #expect(report.checks[0].error == "timed out after 0.05 seconds")
    }

    @Test func sanitizeBoundsLength() {
        struct Long: Error { let text = String(repeating: "x", count: 1000) }
        #expect(HealthChecks.sanitize(Long()).count <= HealthChecks.maximumErrorLength + 1)
    }
}
