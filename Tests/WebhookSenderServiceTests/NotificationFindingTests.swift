import Testing
import WebhookSenderService

@Suite("What an App Store notification finds")
struct NotificationFindingTests {
    static func decide(
        _ subtype: String?, known: Bool = true, _ states: [String] = [], type: String = "EXTERNAL_PURCHASE_TOKEN"
    ) -> NotificationFinding {
        NotificationFinding.decide(type: type, subtype: subtype, tokenKnown: known, lineStates: states)
    }

    @Test func onlyUnreportedTokensAreActedOn() {
        #expect(Self.decide("CREATED", ["pending"]) == .recorded)
        #expect(Self.decide("ACTIVE_TOKEN_REMINDER", known: false) == .recorded)
        #expect(Self.decide(nil, type: "TEST") == .recorded)
        #expect(Self.decide("UNREPORTED", known: false, type: "REFUND") == .recorded)
    }

    @Test func unreportedTokensByWhatWasReported() {
        #expect(Self.decide("UNREPORTED", known: false) == .unknownToken)
        #expect(Self.decide("UNREPORTED", known: true) == .notYetReported)
        #expect(Self.decide("UNREPORTED", ["accepted", "pending"]) == .retried)
        #expect(Self.decide("UNREPORTED", ["accepted", "accepted"]) == .alreadyAccepted)
        // A refused line outranks one waiting: the operator must see it.
        #expect(Self.decide("UNREPORTED", ["pending", "dead"]) == .refused)
        // Lines made for a token the projection does not hold (an earlier UNRECOGNIZED_TOKEN) still count.
        #expect(Self.decide("UNREPORTED", known: false, ["pending"]) == .retried)
    }

    @Test func unrecognizedLinesHaveOneKeyPerToken() {
        #expect(NotificationFinding.unrecognizedKey("SANDBOX_1") == "unrecognized:SANDBOX_1")
        #expect(NotificationFinding.unrecognizedKey("SANDBOX_1") != NotificationFinding.unrecognizedKey("SANDBOX_2"))
    }
}
