import Foundation
import ServiceSettings
import Testing

@testable import CheckoutService

/// The live stream's memory and its answer, with no broker and no server:
/// changes are handed to the hub as the listener would.
@Suite struct EntitlementStreamTests {
    static func change(_ id: String, user: String) -> StreamedEntitlementChange {
        StreamedEntitlementChange(
            id: id, appUserID: user, value: Array(#"{"id":"\#(id)","type":"entitlement.granted","app_user_id":"\#(user)"}"#.utf8))
    }

    // MARK: - Reading records

    @Test func aRecordIsReadByItsIdAndUserAndKeptByteForByte() throws {
        let value = Array(#"{"id":"evt-1","type":"entitlement.renewed","app_user_id":"ada","before":{"x":[1,2.50]},"after":null}"#.utf8)
        let change = try #require(StreamedEntitlementChange(value: value))
        #expect(change.id == "evt-1" && change.appUserID == "ada" && change.value == value)
        for bad in [
            #"{"type":"entitlement.granted","app_user_id":"ada"}"#, #"{"id":"evt-1"}"#, #"{"id":7,"app_user_id":"ada"}"#,
            #"{"id":"","app_user_id":"ada"}"#, #"["evt-1","ada"]"#, "not json", "",
        ] {
            #expect(StreamedEntitlementChange(value: Array(bad.utf8)) == nil, "\(bad)")
        }
    }

    // MARK: - The hub

    @Test func aChangeReachesOnlyItsUsersWaitingPoll() async throws {
        let hub = EntitlementChangeHub()
        async let ada = hub.next(for: "ada", after: nil, timeout: .seconds(20))
        async let bob = hub.next(for: "bob", after: nil, timeout: .milliseconds(600))
        while hub.waitingPolls < 2 { try await Task.sleep(for: .milliseconds(5)) }
        hub.publish(Self.change("evt-1", user: "ada"))
        #expect(try await ada == .changes([Self.change("evt-1", user: "ada")]))
        #expect(try await bob == .changes([]), "another user's poll times out with nothing")
        #expect(hub.waitingPolls == 0)
    }

    @Test func aPollWithACursorGetsWhatCameAfterItAtOnce() async throws {
        let hub = EntitlementChangeHub()
        for id in ["a", "b", "c"] { hub.publish(Self.change(id, user: "ada")) }
        hub.publish(Self.change("x", user: "bob"))
        #expect(
            try await hub.next(for: "ada", after: "a", timeout: .seconds(20))
                == .changes([Self.change("b", user: "ada"), Self.change("c", user: "ada")]))
        #expect(try await hub.next(for: "ada", after: "gone", timeout: .seconds(20)) == .unknownCursor)
        #expect(try await hub.next(for: "ada", after: "x", timeout: .seconds(20)) == .unknownCursor, "another user's event is no cursor")
        // At the newest change: wait for the next one.
        async let next = hub.next(for: "ada", after: "c", timeout: .seconds(20))
        while hub.waitingPolls < 1 { try await Task.sleep(for: .milliseconds(5)) }
        hub.publish(Self.change("c", user: "ada")) // published twice by the outbox: dropped
        hub.publish(Self.change("d", user: "ada"))
        #expect(try await next == .changes([Self.change("d", user: "ada")]))
    }

    @Test func oldChangesAndTheOldestOverTheCapsAreForgotten() async throws {
        let hub = EntitlementChangeHub(settings: EntitlementStreamSettings(replayWindow: .seconds(60), replayPerUser: 2, replayTotal: 3))
        let start = ContinuousClock.now
        hub.publish(Self.change("a1", user: "ada"), now: start)
        hub.publish(Self.change("a2", user: "ada"), now: start)
        hub.publish(Self.change("a3", user: "ada"), now: start)
        #expect(try await Self.immediate(hub, "ada", after: "a1") == .unknownCursor, "over the per-user cap")
        #expect(try await Self.immediate(hub, "ada", after: "a2") == .changes([Self.change("a3", user: "ada")]))
        hub.publish(Self.change("b1", user: "bob"), now: start)
        hub.publish(Self.change("c1", user: "cy"), now: start)
        #expect(try await Self.immediate(hub, "ada", after: "a2") == .unknownCursor, "over the total cap, the oldest goes first")
        hub.publish(Self.change("d1", user: "dee"), now: start + .seconds(61))
        #expect(try await Self.immediate(hub, "bob", after: "b1") == .unknownCursor, "older than the window")
    }

    @Test func pollsOverTheLimitAreRefusedAndCancelledOnesLeave() async throws {
        let hub = EntitlementChangeHub(settings: EntitlementStreamSettings(maxWaiting: 1))
        let first = Task { try await hub.next(for: "ada", after: nil, timeout: .seconds(20)) }
        while hub.waitingPolls < 1 { try await Task.sleep(for: .milliseconds(5)) }
        await #expect(throws: EntitlementChangeHub.Busy.self) { try await hub.next(for: "bob", after: nil, timeout: .seconds(20)) }
        first.cancel()
        #expect(try await first.value == .changes([]))
        #expect(hub.waitingPolls == 0)
        hub.publish(Self.change("evt", user: "ada")) // nobody waits: nothing to resume
    }

    // MARK: - Budgets

    /// Starts a poll and returns once the hub counts it, so polls are admitted in the order started.
    static func waiting(
        _ hub: EntitlementChangeHub, _ user: String, timeout: Duration = .seconds(20)
    ) async throws -> Task<EntitlementChangeHub.Answer, any Error> {
        let before = hub.waitingPolls
        let poll = Task { try await hub.next(for: user, after: nil, timeout: timeout) }
        while hub.waitingPolls == before { try await Task.sleep(for: .milliseconds(5)) }
        return poll
    }

    @Test func aUserAtTheirCapEndsTheirOwnOldestPollWithNothing() async throws {
        let hub = EntitlementChangeHub(settings: EntitlementStreamSettings(maxPerUser: 2))
        let first = try await Self.waiting(hub, "ada")
        let second = try await Self.waiting(hub, "ada")
        let bobs = try await Self.waiting(hub, "bob")
        let clock = ContinuousClock()
        let started = clock.now
        let third = Task { try await hub.next(for: "ada", after: nil, timeout: .seconds(20)) }
        #expect(try await first.value == .changes([]), "the oldest poll is answered empty, so the app simply polls again")
        #expect(clock.now - started < .seconds(5), "ended by the newer poll, not by its own timeout")
        while hub.waitingPolls < 3 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(hub.tally == EntitlementChangeHub.Tally(evicted: 1))

        // Nothing is lost: the polls still waiting, the newest included, get the next change.
        hub.publish(Self.change("evt-1", user: "ada"))
        #expect(try await second.value == .changes([Self.change("evt-1", user: "ada")]))
        #expect(try await third.value == .changes([Self.change("evt-1", user: "ada")]))
        #expect(hub.waitingPolls == 1, "bob's poll is untouched")
        bobs.cancel()
        #expect(try await bobs.value == .changes([]))
        #expect(hub.waitingPolls == 0 && hub.tally.evicted == 1)
    }

    @Test func theUsersCapComesBeforeTheGlobalOneAndRefusalsAreCounted() async throws {
        let hub = EntitlementChangeHub(settings: EntitlementStreamSettings(maxWaiting: 2, maxPerUser: 2))
        let first = try await Self.waiting(hub, "ada")
        let second = try await Self.waiting(hub, "ada")
        // The replica is full, but ada's own oldest makes room for ada's new poll.
        let third = Task { try await hub.next(for: "ada", after: nil, timeout: .seconds(20)) }
        #expect(try await first.value == .changes([]))
        await #expect(throws: EntitlementChangeHub.Busy.self) { try await hub.next(for: "bob", after: nil, timeout: .seconds(20)) }
        #expect(hub.tally == EntitlementChangeHub.Tally(evicted: 1, refused: 1))
        for poll in [second, third] { poll.cancel() }
        #expect(try await second.value == .changes([]))
        #expect(try await third.value == .changes([]))
        #expect(hub.waitingPolls == 0)
    }

    @Test func theReplayBufferKeepsToItsByteBudgetOldestFirst() async throws {
        let a1 = Self.change("a1", user: "ada")
        let cost = EntitlementChangeHub.cost(of: a1)
        #expect(cost > a1.value.count, "the bookkeeping counts too")
        // Room for two changes of this size (every one below is as large), not three.
        let hub = EntitlementChangeHub(settings: EntitlementStreamSettings(replayBytes: 2 * cost + cost / 2))
        hub.publish(a1)
        hub.publish(Self.change("a2", user: "ada"))
        #expect(hub.replayBytes == 2 * cost && hub.tally.dropped == 0)
        hub.publish(Self.change("a3", user: "ada"))
        #expect(hub.replayBytes == 2 * cost && hub.tally.dropped == 1)
        #expect(try await Self.immediate(hub, "ada", after: "a1") == .unknownCursor, "a cursor that fell out is told to reread")
        #expect(try await Self.immediate(hub, "ada", after: "a2") == .changes([Self.change("a3", user: "ada")]))
        // Across users too: bob's change pushes out ada's oldest.
        hub.publish(Self.change("b1", user: "bob"))
        #expect(try await Self.immediate(hub, "ada", after: "a2") == .unknownCursor)
        #expect(try await Self.immediate(hub, "ada", after: "a3") == .changes([]), "the newest is kept: the poll just waits")
        #expect(hub.replayBytes == 2 * cost && hub.tally.dropped == 2)
    }

    @Test func theWaitingCapStaysBelowTheServersConnectionLimit() {
        var defaults = ConfigReader(Environment([:]))
        #expect(EntitlementStreamSettings.fromEnvironment(&defaults).maxWaiting == 768 && defaults.problems.isEmpty)
        var smaller = ConfigReader(Environment([:]))
        #expect(EntitlementStreamSettings.fromEnvironment(&smaller, connectionLimit: 100).maxWaiting == 75, "unset: 3/4 of the limit")
        #expect(smaller.problems.isEmpty)
        var over = ConfigReader(Environment(["CHECKOUT_STREAM_MAX_WAITING": "2000"]))
        _ = EntitlementStreamSettings.fromEnvironment(&over, connectionLimit: 1024)
        #expect(over.problems.map(\.variable) == ["CHECKOUT_STREAM_MAX_WAITING"])
        #expect(over.problems.first?.message.contains("HTTP_MAX_CONNECTIONS (1024)") == true, "\(over.problems)")
        var set = ConfigReader(
            Environment(["CHECKOUT_STREAM_MAX_WAITING": "700", "CHECKOUT_STREAM_MAX_PER_USER": "2", "CHECKOUT_STREAM_REPLAY_BYTES": "2097152"]))
        let read = EntitlementStreamSettings.fromEnvironment(&set, connectionLimit: 1024)
        #expect(set.problems.isEmpty && read.maxWaiting == 700 && read.maxPerUser == 2 && read.replayBytes == 2 << 20)
    }

    /// A poll whose answer should be ready at once (one that is not comes back empty after 50 ms).
    static func immediate(_ hub: EntitlementChangeHub, _ user: String, after cursor: String) async throws -> EntitlementChangeHub.Answer {
        try await hub.next(for: user, after: cursor, timeout: .milliseconds(50))
    }

    // MARK: - The answer

    @Test func theAnswerForwardsEventsUntouchedWithTheCursor() throws {
        let events = [Self.change("e1", user: "ada"), Self.change("e2", user: "ada")]
        let body = EntitlementStreamRoute.render(.changes(events), cursor: "e0")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        #expect(object["cursor"] as? String == "e2" && object["reset"] as? Bool == false && object["success"] as? Bool == true)
        #expect((object["events"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["e1", "e2"])
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.contains(String(decoding: events[0].value, as: UTF8.self)), "the value's bytes, not a re-encoding")
        #expect(
            String(decoding: EntitlementStreamRoute.render(.changes([]), cursor: "e\"0"), as: UTF8.self)
                == #"{"success":true,"events":[],"cursor":"e\"0","reset":false}"#)
        #expect(
            String(decoding: EntitlementStreamRoute.render(.changes([]), cursor: nil), as: UTF8.self)
                == #"{"success":true,"events":[],"cursor":null,"reset":false}"#)
        #expect(
            String(decoding: EntitlementStreamRoute.render(.unknownCursor, cursor: "old"), as: UTF8.self)
                == #"{"success":true,"events":[],"cursor":null,"reset":true}"#)
    }
}
