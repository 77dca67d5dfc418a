import Foundation
@testable import HTTPServer
import Synchronization
import Telemetry
import Testing
import TestSupport

final class HitCounter: Sendable {
    private let value = Atomic<Int>(0)
    func increment() { value.add(1, ordering: .relaxed) }
    var current: Int { value.load(ordering: .relaxed) }
}

/// Graceful drain, the drain deadline and handler deadlines.
@Suite struct ShutdownTests {
    @Test func drainLetsInFlightRequestsFinishAndRefusesNewConnections() async throws {
        let started = HitCounter()
        var configuration = HTTPServerConfiguration()
        configuration.shutdownGracePeriod = .seconds(10)
        let router = Router()
        router.get("/work") { _, _ in
            started.increment()
            try await Task.sleep(for: .milliseconds(500))
            return ["done": true]
        }
        let server = HTTPServer(
            responder: router.buildResponder(), configuration: configuration,
            logger: .init(service: "drain-test", sink: CapturingLogSink()))
        let port = try server.start()

        async let inFlight = concurrentGets(port, target: "/work", count: 20)
        try await waitUntil { started.current == 20 }
        async let stopping: Void = server.shutdown()
        try await waitUntil { server.port == nil } // shutdown has begun
        let refused = try await offPool { () -> Int32 in
            do { _ = try RawConnection(port: port); return 0 } catch RawClientError.connect(let code) { return code }
        }
        #expect(refused == ECONNREFUSED)
        let statuses = try await inFlight
        #expect(statuses == Array(repeating: 200, count: 20))
        await stopping
        #expect(server.liveRequestStates == 0)
    }

    @Test func requestsStillRunningAtTheDeadlineGet503() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.shutdownGracePeriod = .milliseconds(300)
        let started = HitCounter()
        let router = Router()
        router.get("/forever") { _, _ in
            started.increment()
            try await Task.sleep(for: .seconds(30))
            return "never"
        }
        let server = HTTPServer(
            responder: router.buildResponder(), configuration: configuration,
            logger: .init(service: "drain-test", sink: CapturingLogSink()))
        let port = try server.start()
        async let responses = concurrentGets(port, target: "/forever", count: 3)
        try await waitUntil { started.current == 3 }
        let before = ContinuousClock.now
        await server.shutdown()
        // Far below the handlers' 30 s sleep: the grace period, not the handlers, decided.
        #expect(ContinuousClock.now - before < .seconds(15))
        #expect(try await responses == [503, 503, 503])
    }

    @Test func handlerPastItsDeadlineGets504AndIsCancelled() async throws {
        let cancelled = HitCounter()
        try await withServer(
            configure: { $0.handlerTimeout = .milliseconds(200) },
            routes: { router in
                router.get("/stuck") { _, _ in
                    do {
                        try await Task.sleep(for: .seconds(30))
                    } catch {
                        cancelled.increment()
                        throw error
                    }
                    return "late"
                }
            }
        ) { harness in
            let response = try await request(harness.port, "GET", "/stuck")
            #expect(response.status == 504)
            #expect(response.text == #"{"success":false,"error":"Request timed out","code":"timeout"}"#)
            try await waitUntil { cancelled.current == 1 }
        }
    }

    /// A request that reaches a kept-alive connection after the grace period
    /// (while shutdown waits for a half-sent upload) used to be suspended and
    /// never answered: libmicrohttpd was stopped with its connection still
    /// suspended, and the handler finishing later resumed a freed connection.
    /// Now it is answered 503 at once, and the late handler touches nothing.
    @Test func aRequestArrivingAfterTheGracePeriodIsAnswered503AndItsLateHandlerIsHarmless() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.shutdownGracePeriod = .milliseconds(200)
        let gate = Gate(), started = HitCounter(), finished = HitCounter()
        let router = Router()
        router.get("/quick") { _, _ in "ok" }
        router.get("/hold") { _, _ in
            started.increment()
            await gate.wait() // ignores cancellation, as a handler stuck in a C call would
            finished.increment()
            return "late"
        }
        let server = HTTPServer(
            responder: router.buildResponder(), configuration: configuration,
            logger: .init(service: "drain-test", sink: CapturingLogSink()))
        let port = try server.start()
        let kept = try await offPool { try RawConnection(port: port, timeout: .seconds(10)) }
        let first = try await offPool { () -> Int in
            try kept.send("GET /quick HTTP/1.1\r\nHost: t\r\n\r\n")
            return try kept.readResponse().status
        }
        #expect(first == 200)
        // Half an upload keeps a request active, so shutdown waits past its grace period.
        let upload = try await offPool { () -> RawConnection in
            let connection = try RawConnection(port: port, timeout: .seconds(10))
            try connection.send("POST /quick HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n0123456789")
            return connection
        }
        try await waitUntil { server.activeRequests == 1 }

        async let stopping: Void = server.shutdown()
        try await waitUntil { server.port == nil }
        try await Task.sleep(for: .milliseconds(600)) // past the grace period: in-flight requests were answered
        let late = try await offPool { () -> Int in
            try kept.send("GET /hold HTTP/1.1\r\nHost: t\r\n\r\n")
            return (try? kept.readResponse().status) ?? -1
        }
        await stopping
        #expect(late == 503)
        #expect(started.current == 0, "the handler did not run after the grace period")
        gate.open()
        try await Task.sleep(for: .milliseconds(200))
        #expect(finished.current == started.current)
        #expect(server.liveRequestStates == 0)
        _ = upload
    }
}
