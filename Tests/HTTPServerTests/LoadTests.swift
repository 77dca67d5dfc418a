import Foundation
@testable import HTTPServer
import Synchronization
import Testing

/// Many simultaneous requests; handlers that await must not hold HTTP threads.
@Suite struct LoadTests {
    @Test func thousandConcurrentRequestsAllSucceed() async throws {
        try await withServer(
            configure: {
                $0.maxConnections = 2000
                $0.maxConnectionsPerIP = 0
            },
            routes: { router in
                router.get("/items/{id}") { _, context in ["id": try context.parameters.require("id")] }
            }
        ) { harness in
            let statuses = try await concurrentGets(harness.port, target: "/items/7", count: 1000)
            #expect(statuses.count == 1000)
            #expect(statuses.filter { $0 == 200 }.count == 1000, "statuses other than 200: \(Set(statuses))")
        }
    }

    @Test func sleepingHandlersOverlapWhileConnectionsAreSuspended() async throws {
        let requests = 200
        let threads = 2 // far fewer HTTP threads than concurrent requests
        // How many handlers are asleep at once, and the most seen: counted, not timed,
        // so a busy machine cannot make the test pass or fail by chance.
        let sleeping = Mutex((now: 0, peak: 0))
        try await withServer(
            configure: {
                $0.threadPoolSize = threads
                $0.maxConnectionsPerIP = 0
            },
            routes: { router in
                router.get("/slow") { _, _ in
                    sleeping.withLock {
                        $0.now += 1; $0.peak = max($0.peak, $0.now)
                    }
                    defer { sleeping.withLock { $0.now -= 1 } }
                    try await Task.sleep(for: .milliseconds(50))
                    return ["slept": true]
                }
            }
        ) { harness in
            let statuses = try await concurrentGets(harness.port, target: "/slow", count: requests)
            #expect(statuses.allSatisfy { $0 == 200 }, "statuses: \(Set(statuses))")
            // A handler that held its HTTP thread while asleep would cap this at `threads`.
            let peak = sleeping.withLock { $0.peak }
            #expect(peak > threads * 4, "at most \(peak) handlers were suspended at once")
            #expect(harness.server.activeRequests == 0)
        }
    }
}
