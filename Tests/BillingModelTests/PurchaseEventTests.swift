import Foundation
import BillingModel
import Testing

/// The `storefront.purchase-events.v1` value: the contract's field names and
/// shape, its key, types this build does not know, and no secret in its
/// descriptions.
@Suite struct PurchaseEventTests {
    static let purchase = PurchaseEvent.Purchase(provider: .lemonsqueezy, type: .subscription, id: "421953")
    static let secretURL = "https://shop.example.com/redeem/rt_s3cr3t-t0ken"

    static let event = PurchaseEvent.redemptionIssued(
        id: "5f1c0d0e-8a4b-4c55-9d0e-2b7f3c9a1e42", occurredAt: Date(timeIntervalSince1970: 1_790_000_001.5), purchase: purchase,
        email: "buyer@example.com", redemptionURL: secretURL, expiresAt: Date(timeIntervalSince1970: 1_790_003_601.5), ref: nil)

    @Test func encodesTheContractsShapeByteForByte() throws {
        let text = String(decoding: try RecordCoding.encode(Self.event), as: UTF8.self)
        #expect(
            text
                == #"{"email":"buyer@example.com","expires_at":"2026-09-21T15:13:21.500Z","id":"5f1c0d0e-8a4b-4c55-9d0e-2b7f3c9a1e42","#
                + #""occurred_at":"2026-09-21T14:13:21.500Z","purchase":{"id":"421953","provider":"lemonsqueezy","type":"subscription"},"#
                + #""redemption_url":"https://shop.example.com/redeem/rt_s3cr3t-t0ken","ref":null,"type":"purchase.redemption_issued"}"#)
        var tagged = Self.event
        tagged.ref = "spring-sale"
        let json = try #require(try JSONSerialization.jsonObject(with: Data(RecordCoding.encode(tagged))) as? [String: Any])
        #expect(Set(json.keys) == ["id", "type", "occurred_at", "purchase", "email", "redemption_url", "expires_at", "ref"])
        #expect(json["ref"] as? String == "spring-sale")
    }

    @Test func readsTheContractsExampleAndRoundTrips() throws {
        // The contract's example, in its own key order and with offsets other than Z.
        let contract = """
            {"id":"5f1c0d0e-8a4b-4c55-9d0e-2b7f3c9a1e42","type":"purchase.redemption_issued","occurred_at":"2026-09-21T16:13:21.5+02:00",
             "purchase":{"provider":"lemonsqueezy","type":"subscription","id":"421953"},
             "email":"buyer@example.com","redemption_url":"https://shop.example.com/redeem/rt_s3cr3t-t0ken","expires_at":"2026-09-21T15:13:21.500Z","ref":null}
            """
        let decoded = try RecordCoding.decode(PurchaseEvent.self, from: Array(contract.utf8))
        #expect(decoded == Self.event)
        #expect(try RecordCoding.decode(PurchaseEvent.self, from: try RecordCoding.encode(Self.event)) == Self.event)
    }

    @Test func theKeyIsThePurchase() {
        #expect(Self.event.key == "lemonsqueezy:subscription:421953")
        #expect(TopicKey.purchase(.paystack, type: .order, id: "T_9") == "paystack:order:T_9")
        #expect(Topics.purchaseEvents == "storefront.purchase-events.v1" && Topics.all.contains(Topics.purchaseEvents))
    }

    @Test func aTypeThisBuildDoesNotKnowIsReadAndWrittenBackUnchanged() throws {
        let later =
            #"{"id":"e-2","occurred_at":"2026-09-21T14:13:21.500Z","purchase":{"id":"9","provider":"paystack","type":"order"},"ref":null,"type":"purchase.redeemed","app_user_id":"u-1"}"#
        let decoded = try RecordCoding.decode(PurchaseEvent.self, from: Array(later.utf8))
        #expect(decoded.type == .unknown("purchase.redeemed") && decoded.type.rawValue == "purchase.redeemed")
        #expect(decoded.redemptionURL == nil && decoded.email == nil && decoded.expiresAt == nil)
        #expect(decoded.key == "paystack:order:9")
        // Fields it does not know are not kept (the sender forwards the record's own bytes).
        #expect(
            String(decoding: try RecordCoding.encode(decoded), as: UTF8.self)
                == #"{"id":"e-2","occurred_at":"2026-09-21T14:13:21.500Z","purchase":{"id":"9","provider":"paystack","type":"order"},"ref":null,"type":"purchase.redeemed"}"#
        )
        #expect(PurchaseEvent.Kind(rawValue: "purchase.redemption_issued") == .redemptionIssued)
        #expect(PurchaseEvent.Kind.known.map(\.rawValue) == ["purchase.redemption_issued"])
    }

    @Test func aRedemptionWithoutItsLinkIsRefusedBothWays() throws {
        let valid = String(decoding: try RecordCoding.encode(Self.event), as: UTF8.self)
        for field in ["redemption_url", "email", "expires_at"] {
            var object = try #require(try JSONSerialization.jsonObject(with: Data(valid.utf8)) as? [String: Any])
            object[field] = nil
            let bytes = [UInt8](try JSONSerialization.data(withJSONObject: object))
            #expect(throws: DecodingError.self, "\(field)") { try RecordCoding.decode(PurchaseEvent.self, from: bytes) }
        }
        for broken in [#""occurred_at":"2026-09-21T14:13:21.500Z""#, #""provider":"lemonsqueezy""#] {
            let bytes = Array(valid.replacingOccurrences(of: broken, with: broken.replacingOccurrences(of: ":\"", with: ":\"x")).utf8)
            #expect(throws: DecodingError.self, "\(broken)") { try RecordCoding.decode(PurchaseEvent.self, from: bytes) }
        }
        var incomplete = Self.event
        incomplete.redemptionURL = nil
        #expect(throws: EncodingError.self) { try RecordCoding.encode(incomplete) }
    }

    @Test func descriptionsLeaveTheLinkAndTheEmailOut() {
        var dumped = ""
        dump(Self.event, to: &dumped)
        for text in ["\(Self.event)", String(describing: Self.event), String(reflecting: Self.event), dumped] {
            #expect(!text.contains("rt_s3cr3t") && !text.contains("buyer@example.com"), "\(text)")
            #expect(text.contains(Self.event.id) && text.contains("<redacted>"))
        }
    }
}
