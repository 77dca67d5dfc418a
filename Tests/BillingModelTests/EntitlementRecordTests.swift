import Foundation
import Testing
@testable import BillingModel

/// The hand-written entitlement records (`EntitlementInfo.encodedList`,
/// `EntitlementChange.encodedChange`) are byte for byte what `RecordCoding`
/// (`JSONEncoder`, sorted keys) writes: the outbox compares and publishes these bytes.
@Suite struct EntitlementRecordTests {
    /// A small deterministic generator, so a failure names a reproducible case.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state ^ (state >> 29)
        }
    }

    /// Every control character, quotes, backslashes, slashes, non-ASCII and an emoji, among plain text.
    static let pieces = ["plain", "\"", "\\", "/", "ü", "🌍", "\u{7F}", "\u{2028}", " ", "sku_1"] + (0..<32).map { String(UnicodeScalar(UInt8($0))) }

    static func text(_ g: inout Generator) -> String {
        (0..<Int.random(in: 0...4, using: &g)).map { _ in pieces.randomElement(using: &g)! }.joined()
    }

    static func date(_ g: inout Generator) -> Date? {
        switch Int.random(in: 0...3, using: &g) {
        case 0: nil
        case 1: Date(timeIntervalSince1970: Double(Int.random(in: 0...4_000_000_000, using: &g)))
        case 2: Date(timeIntervalSince1970: Double(Int.random(in: 0...4_000_000_000_000, using: &g)) / 1000)
        default: Date(timeIntervalSince1970: Double.random(in: -1_000_000...4_000_000_000, using: &g))
        }
    }

    static func entitlement(_ g: inout Generator) -> EntitlementInfo {
        var info = EntitlementInfo(
            identifier: text(&g), isActive: Bool.random(using: &g), expiresAt: date(&g), willRenew: Bool.random(using: &g),
            periodType: Bool.random(using: &g) ? .trial : .normal, productID: text(&g), provider: Provider.allCases.randomElement(using: &g)!,
            source: Bool.random(using: &g) ? .subscription : .purchase, latestPurchaseAt: date(&g), originalPurchaseAt: date(&g),
            unsubscribeDetectedAt: date(&g), billingIssueDetectedAt: date(&g), sandbox: Bool.random(using: &g))
        info.disputeDetectedAt = date(&g)
        info.refundedAt = date(&g)
        // One in four a promotional grant: no provider, a grant id.
        if Int.random(in: 0...3, using: &g) == 0 {
            info.provider = nil
            info.source = .grant
            info.grantID = text(&g)
        }
        return info
    }

    @Test func aGrantIsWrittenPromotionalAndReadBack() throws {
        var info = EntitlementInfo(
            identifier: "premium", isActive: true, expiresAt: Date(timeIntervalSince1970: 1_900_000_000), willRenew: false, periodType: .normal,
            productID: "promotional", provider: nil, source: .grant, latestPurchaseAt: nil, originalPurchaseAt: nil,
            unsubscribeDetectedAt: nil, billingIssueDetectedAt: nil, sandbox: false)
        info.grantID = "grant_1"
        let object = try #require(try JSONSerialization.jsonObject(with: Data(EntitlementInfo.encodedList([info]))) as? [[String: Any]]).first
        #expect(object?["provider"] as? String == "promotional" && object?["store"] as? String == "promotional")
        #expect(object?["source"] as? String == "grant" && object?["grant_id"] as? String == "grant_1")
        #expect(try RecordCoding.decode([EntitlementInfo].self, from: EntitlementInfo.encodedList([info])) == [info])
    }

    @Test func aListStoredBeforeGrantsReadsBackEqual() throws {
        // What the outbox stored before grants: no grant_id, no store. Read
        // back, it must equal the same entitlement written now, or every
        // user's first change after the upgrade would be announced as news.
        let old =
            #"[{"billing_issue_detected_at":null,"dispute_detected_at":null,"expires_at":null,"identifier":"premium","is_active":true,"latest_purchase_at":null,"original_purchase_at":null,"period_type":"normal","product_id":"ls_2","provider":"lemonsqueezy","refunded_at":null,"sandbox":false,"source":"purchase","unsubscribe_detected_at":null,"will_renew":false}]"#
        let decoded = try RecordCoding.decode([EntitlementInfo].self, from: Array(old.utf8))
        #expect(decoded.first?.provider == .lemonsqueezy && decoded.first?.grantID == nil && decoded.first?.store == "lemonsqueezy")
    }

    @Test func listsAreWhatJSONEncoderWrites() throws {
        var g = Generator(state: 22)
        for _ in 0..<300 {
            let list = (0..<Int.random(in: 0...3, using: &g)).map { _ in Self.entitlement(&g) }
            #expect(EntitlementInfo.encodedList(list) == (try RecordCoding.encode(list)), "\(list)")
        }
    }

    @Test func changesAreWhatJSONEncoderWrites() throws {
        var g = Generator(state: 2026)
        for _ in 0..<300 {
            let change = EntitlementChange(
                id: Self.text(&g), type: EntitlementChange.Kind.allCases.randomElement(using: &g)!, appUserID: Self.text(&g),
                occurredAt: Self.date(&g) ?? Date(timeIntervalSince1970: 0),
                cause: .init(
                    kind: [.providerEvent, .command, .claim, .snapshot, .grant, .revoke].randomElement(using: &g)!,
                    provider: Bool.random(using: &g) ? nil : Provider.allCases.randomElement(using: &g)!, reference: Self.text(&g)),
                before: EntitlementsResponse(entitlements: (0..<Int.random(in: 0...2, using: &g)).map { _ in Self.entitlement(&g) }),
                after: EntitlementsResponse(entitlements: (0..<Int.random(in: 0...2, using: &g)).map { _ in Self.entitlement(&g) }))
            #expect(change.encodedChange() == (try RecordCoding.encode(change)), "\(change)")
        }
    }

    @Test func asRecordedIsWhatTheRecordReadsBack() throws {
        var g = Generator(state: 11)
        for _ in 0..<300 {
            let list = (0..<Int.random(in: 0...3, using: &g)).map { _ in Self.entitlement(&g) }
            let read = try RecordCoding.decode([EntitlementInfo].self, from: EntitlementInfo.encodedList(list))
            #expect(try list.map { try $0.asRecorded() } == read, "\(list)")
        }
    }

    @Test func theEmptyListIsTwoBytes() {
        #expect(EntitlementInfo.encodedList([]) == Array("[]".utf8))
    }
}
