import Foundation
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
