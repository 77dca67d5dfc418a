import Foundation
@testable import HTTPServer
import Testing

/// Many simultaneous requests; handlers that await must not hold HTTP threads.
@Suite struct LoadTests {
    @Test func thousandConcurrentRequestsAllSucceed() async throws {
        try await withServer(configure: {
            $0.maxConnections = 2000
            $0.maxConnectionsPerIP = 0
        }, routes: { router in
            router.get("/items/{id}") { _, context in ["id": try context.parameters.require("id")] }
        }) { harness in
            let statuses = try await concurrentGets(harness.port, target: "/items/7", count: 1000)
            #expect(statuses.count == 1000)
            #expect(statuses.filter { $0 == 200 }.count == 1000, "statuses other than 200: \(Set(statuses))")
        }
    }

    @Test func sleepingHandlersOverlapWhileConnectionsAreSuspended() async throws {
        let requests = 200
        let sleep = Duration.milliseconds(50)
        try await withServer(configure: {
            $0.threadPoolSize = 2  // far fewer HTTP threads than concurrent requests
            $0.maxConnectionsPerIP = 0
        }, routes: { router in
            router.get("/slow") { _, _ in
                try await Task.sleep(for: sleep)
                return ["slept": true]
            }
        }) { harness in
            let started = ContinuousClock.now
            let statuses = try await concurrentGets(harness.port, target: "/slow", count: requests)
            let elapsed = ContinuousClock.now - started
            #expect(statuses.allSatisfy { $0 == 200 }, "statuses: \(Set(statuses))")
            // Serial handling would take requests × 50 ms = 10 s; overlap makes it far shorter.
            #expect(elapsed < sleep * requests / 4, "took \(elapsed)")
            #expect(harness.server.activeRequests == 0)
        }
    }
}
