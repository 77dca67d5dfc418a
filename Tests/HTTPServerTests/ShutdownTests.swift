import Foundation
@testable import HTTPServer
import Synchronization
import Telemetry
import Testing

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
        let server = HTTPServer(responder: router.buildResponder(), configuration: configuration,
                                logger: .init(service: "drain-test", sink: CapturingLogSink()))
        let port = try server.start()

        async let inFlight = concurrentGets(port, target: "/work", count: 20)
        try await waitUntil { started.current == 20 }
        async let stopping: Void = server.shutdown()
        try await waitUntil { server.port == nil }  // shutdown has begun
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
        let server = HTTPServer(responder: router.buildResponder(), configuration: configuration,
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
        try await withServer(configure: { $0.handlerTimeout = .milliseconds(200) }, routes: { router in
            router.get("/stuck") { _, _ in
                do {
                    try await Task.sleep(for: .seconds(30))
                } catch {
                    cancelled.increment()
                    throw error
                }
                return "late"
            }
        }) { harness in
            let response = try await request(harness.port, "GET", "/stuck")
            #expect(response.status == 504)
            #expect(response.text == #"{"success":false,"error":"Request timed out"}"#)
            try await waitUntil { cancelled.current == 1 }
        }
    }
}
