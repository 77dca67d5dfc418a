import CryptoPrimitives
import Foundation
import Postgres
import TestSupport
import Testing
@testable import WebhookSenderService

/// The circuit breaker and the replay of a time range, on the queue's own
/// statements against real PostgreSQL.
@Suite struct BreakerAndReplayTests {
    static func events(_ prefix: String, users: [String]) -> [OutgoingEvent] {
        users.enumerated().map { OutgoingEvent(id: "\(prefix)-\($0.offset)", type: "entitlement.granted", orderingKey: $0.element, body: "{}") }
    }

    static func states(_ pool: PostgresPool, _ endpoint: String) async throws -> [String: (state: String, head: Bool)] {
        var result: [String: (String, Bool)] = [:]
        for row in try await pool.query(
            "SELECT event_id, state, next_attempt_at < 'infinity' FROM webhook_deliveries WHERE endpoint_id = \(endpoint)")
        {
            let (id, state, head) = try row.decode((String, String, Bool).self)
            result[id] = (state, head)
        }
        return result
    }

    @Test func anEndpointFailingForDaysIsDisabledItsNewEventsKeptDeadAndARangeReplayQueuesThemOnce() async throws {
        try await FreshDatabase.with(prefix: "test_breaker") { pool, _ in
            try await WebhookSenderSchema.migrate(pool: pool)
            let endpoints = EndpointStore(pool: pool), deliveries = DeliveryStore(pool: pool)
            let queue = PostgresDeliveryQueue(deliveries: deliveries, endpoints: endpoints)
            let endpoint = WebhookEndpoint(
                id: "ep_broken", url: "https://broken.example/h", secret: try StandardWebhookSignature.generateSecret(), eventTypes: [])
            try await endpoints.add(endpoint)
            #expect(try await deliveries.enqueue(Self.events("old", users: ["u1", "u1", "u2"]), for: [endpoint]) == 3)
            var heads = try await Self.states(pool, endpoint.id)
            #expect(heads["old-0"]?.head == true && heads["old-1"]?.head == false && heads["old-2"]?.head == true, "one head per user")

            // A first failure starts the streak; it is not long enough to disable anything.
            let first = try #require(try await deliveries.claimDue(slots: [endpoint.id: 2], total: 2, lease: .seconds(30)).first)
            let failure = DeliveryOutcome.failed(status: 503, reason: "answered 503")
            guard case .failing? = try await queue.record(first, outcome: failure, retryAt: Date(), disableAfter: .seconds(3600)) else {
                Issue.record("a fresh failure only starts the streak")
                return
            }
            #expect(try await endpoints.all().first?.enabled == true)
            // Failing for six days, with a five-day limit: the next failure disables it, once.
            _ = try await pool.execute("UPDATE webhook_endpoints SET failing_since = now() - interval '6 days' WHERE endpoint_id = \(endpoint.id)")
            let again = try #require(try await deliveries.claimDue(slots: [endpoint.id: 2], total: 2, lease: .seconds(30)).first)
            guard case .disabled? = try await queue.record(again, outcome: failure, retryAt: Date(), disableAfter: .seconds(5 * 86_400)) else {
                Issue.record("failing for longer than allowed disables the endpoint")
                return
            }
            let disabled = try #require(try await endpoints.all().first)
            #expect(!disabled.enabled && disabled.disabledReason == .failing && disabled.failingSince != nil && disabled.disabledAt != nil)
            #expect(try await queue.record(again, outcome: failure, retryAt: Date(), disableAfter: .seconds(1)) == .unchanged)
            #expect(try await deliveries.claimDue(slots: [endpoint.id: 2], total: 2, lease: .seconds(30)).isEmpty, "nothing is sent to it")

            // While disabled, its new events are kept dead, never sent, for a replay.
            let replayFrom = try #require(try await pool.query("SELECT now()").first?.decode(Date.self))
            #expect(try await deliveries.enqueue(Self.events("new", users: ["u1", "u3"]), for: try await endpoints.receiving()) == 2)
            heads = try await Self.states(pool, endpoint.id)
            #expect(heads["new-0"]?.state == "dead" && heads["new-1"]?.state == "dead")

            // Fixed: enabled (the streak is forgotten) and the range replayed.
            #expect(try await endpoints.setEnabled(endpoint.id, true))
            let healed = try #require(try await endpoints.all().first)
            #expect(healed.enabled && healed.disabledReason == nil && healed.failingSince == nil)
            let selection = ReplaySelection(endpointID: endpoint.id, since: replayFrom)
            #expect(try await deliveries.replayCount(selection) == 2)
            var reported: [Int] = []
            #expect(try await deliveries.replay(selection, chunk: 1) { reported.append($0) } == 2)
            #expect(reported == [1, 2], "progress per chunk")
            heads = try await Self.states(pool, endpoint.id)
            #expect(heads["new-0"]?.state == "pending" && heads["new-0"]?.head == false, "u1's replayed change waits behind u1's older ones")
            #expect(heads["new-1"]?.state == "pending" && heads["new-1"]?.head == true, "u3 has nothing else pending: sent now")
            #expect(try await deliveries.replay(selection) == 0, "a second run queues nothing twice")

            // Delivering u1's head hands its place on, in order.
            let claimed = try await deliveries.claimDue(slots: [endpoint.id: 10], total: 10, lease: .seconds(30))
            #expect(Set(claimed.map(\.eventID)) == ["old-0", "new-1"], "the due heads; old-2 is still leased from the first claim")
            let old0 = try #require(claimed.first { $0.eventID == "old-0" })
            try await deliveries.record(old0, outcome: .delivered(status: 204), retryAt: nil)
            heads = try await Self.states(pool, endpoint.id)
            #expect(heads["old-1"]?.head == true && heads["new-0"]?.head == false, "the next of u1, not the one after")
        }
    }
}
