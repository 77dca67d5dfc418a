import Foundation
import Synchronization
import Telemetry
import Testing
@testable import WebhookSenderService

/// The dispatcher's scheduling against an in-memory queue and a scripted
/// network: no server, no socket.
@Suite struct DeliveryDispatcherTests {
    static func endpoint(_ id: String) -> WebhookEndpoint {
        WebhookEndpoint(id: id, url: "https://\(id).example/hook", secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", eventTypes: [])
    }

    static func deliveries(_ endpoint: String, count: Int, users: Int) -> [Delivery] {
        (0..<count).map { Delivery(endpointID: endpoint, eventID: "\(endpoint)-\($0)", orderingKey: "user-\($0 % users)", body: "{}", attempts: 0) }
    }

    static func settings(poll: Duration = .milliseconds(20)) -> DeliveryDispatcher.Settings {
        var settings = DeliveryDispatcher.Settings()
        settings.concurrency = 8
        settings.endpointConcurrency = 2
        settings.pollInterval = poll
        settings.schedule = RetrySchedule(delays: Array(repeating: .milliseconds(1), count: 1000), jitter: 0)
        return settings
    }

    /// Runs the dispatcher while `body` runs, then stops it as a shutdown does.
    static func running(
        _ queue: FakeDeliveryQueue, _ transport: ScriptedTransport, settings: DeliveryDispatcher.Settings,
        metrics: MetricsRegistry = MetricsRegistry(),
        logger: Logger = Logger(service: "dispatcher-tests", minimumLevel: .critical), _ body: () async throws -> Void
    ) async throws {
        let dispatcher = DeliveryDispatcher(
            queue: queue, transport: transport, targets: NoTargetCheck(), settings: settings, metrics: WebhookSenderMetrics(registry: metrics),
            logger: logger)
        let task = Task { try await dispatcher.run() }
        var failure: (any Error)?
        do { try await body() } catch { failure = error }
        transport.release()
        task.cancel()
        try await task.value
        if let failure { throw failure }
    }

    /// The black-holed transport answers only once the test ends, so an unfair
    /// dispatcher never gets there: the timeout only bounds a failing run, and
    /// is long because the unit suites run in parallel (10 s ran out in a
    /// fresh-clone `make test`).
    static func waitFor(_ what: String, timeout: Duration = .seconds(60), _ done: () -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !done() {
            try #require(ContinuousClock.now < deadline, "timed out waiting for \(what)")
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test func aBlackHoledEndpointHoldsOnlyItsOwnSlotsWhileTheOthersFlow() async throws {
        // The dead endpoint's rows come first, as a backlog does.
        let queue = FakeDeliveryQueue(
            endpoints: [Self.endpoint("dead"), Self.endpoint("fine"), Self.endpoint("also-fine")],
            deliveries: Self.deliveries("dead", count: 200, users: 200) + Self.deliveries("fine", count: 60, users: 7)
                + Self.deliveries("also-fine", count: 60, users: 60))
        let transport = ScriptedTransport(blackHoled: ["dead.example"])
        try await Self.running(queue, transport, settings: Self.settings()) {
            try await Self.waitFor("both healthy endpoints' deliveries") {
                queue.state.withLock { ($0.delivered["fine"]?.count ?? 0) + ($0.delivered["also-fine"]?.count ?? 0) } == 120
            }
            let stuck = transport.state.withLock { ($0.inFlight["dead.example"] ?? 0, $0.mostInFlight["dead.example"] ?? 0) }
            #expect(stuck.0 == 2 && stuck.1 == 2, "the black hole holds its two slots, no more: \(stuck)")
            #expect(transport.state.withLock { $0.mostInFlight.values.max() ?? 0 } <= 2, "no endpoint above its concurrency")
            // Once full, the black-holed endpoint is not even asked for.
            let lastRequests = queue.state.withLock { Array($0.requests.suffix(5)) }
            #expect(lastRequests.allSatisfy { $0["dead"] == nil }, "\(lastRequests)")
        }
        #expect(queue.state.withLock { $0.delivered["dead"] == nil })
    }

    @Test func theReplicaWideLimitIsSharedOutAndNeverExceeded() async throws {
        let ids = (0..<6).map { "ep\($0)" }
        let queue = FakeDeliveryQueue(endpoints: ids.map(Self.endpoint), deliveries: ids.flatMap { Self.deliveries($0, count: 30, users: 30) })
        let transport = ScriptedTransport(blackHoled: Set(ids.map { "\($0).example" }))
        var settings = Self.settings()
        settings.concurrency = 6
        try await Self.running(queue, transport, settings: settings) {
            try await Self.waitFor("six attempts in flight") { transport.state.withLock { $0.inFlight.values.reduce(0, +) } == 6 }
            try await Task.sleep(for: .milliseconds(100))
            let inFlight = transport.state.withLock { $0.inFlight }
            #expect(inFlight.values.reduce(0, +) == 6, "the replica's limit: \(inFlight)")
            #expect(inFlight.values.allSatisfy { $0 == 1 }, "one each before anyone's second: \(inFlight)")
        }
    }

    @Test func anEndpointTheBreakerDisabledIsReportedAndNoLongerClaimedFor() async throws {
        let queue = FakeDeliveryQueue(
            endpoints: [Self.endpoint("broken"), Self.endpoint("fine")],
            deliveries: Self.deliveries("broken", count: 50, users: 50) + Self.deliveries("fine", count: 5, users: 5))
        queue.state.withLock { $0.disableAfterFailures["broken"] = 3 }
        let transport = ScriptedTransport(failing: ["broken.example"])
        let metrics = MetricsRegistry()
        let logs = CapturingLogSink()
        // A long poll interval: only the breaker's verdict, not a periodic re-read, can drop the endpoint.
        try await Self.running(
            queue, transport, settings: Self.settings(poll: .seconds(30)), metrics: metrics,
            logger: Logger(service: "dispatcher-tests", minimumLevel: .info, sink: logs)
        ) {
            try await Self.waitFor("the breaker's verdict") { queue.state.withLock { $0.endpoints.first { $0.id == "broken" }?.enabled == false } }
            try await Self.waitFor("the healthy endpoint's deliveries") { queue.state.withLock { $0.delivered["fine"]?.count == 5 } }
            try await Task.sleep(for: .milliseconds(100))
            let afterwards = transport.state.withLock { $0.attempts["broken.example"] ?? 0 }
            try await Task.sleep(for: .milliseconds(100))
            #expect(transport.state.withLock { $0.attempts["broken.example"] ?? 0 } == afterwards, "no attempt after it was disabled")
        }
        // The verdict's own wake-up claims again: by then the endpoint is gone
        // from what the dispatcher asks for, without waiting for a re-read.
        let (requests, trippedAt) = queue.state.withLock { ($0.requests, $0.trippedAt) }
        let after = requests[try #require(trippedAt)...]
        #expect(!after.isEmpty && after.last?["broken"] == nil, "\(after)")
        #expect(metrics.renderPrometheus().contains("webhook_sender_endpoint_disabled_total{endpoint=\"broken\"} 1"))
        #expect(logs.lines.contains { $0.contains("webhook endpoint disabled") && $0.contains("broken") })
    }
}

@Suite struct EndpointSlotsTests {
    @Test func fullEndpointsAreLeftOutAndAFullReplicaAsksForNothing() {
        var slots = EndpointSlots(perEndpoint: 2, total: 3)
        #expect(slots.free(among: ["a", "b"]) == ["a": 2, "b": 2])
        slots.take("a")
        slots.take("a")
        #expect(slots.free(among: ["a", "b"]) == ["b": 2])
        slots.take("b")
        #expect(slots.room == 0 && slots.free(among: ["a", "b"]).isEmpty)
        slots.release("a")
        #expect(slots.free(among: ["a", "b"]) == ["a": 1, "b": 1])
        slots.release("nobody")
        #expect(slots.busy == 2)
    }
}
