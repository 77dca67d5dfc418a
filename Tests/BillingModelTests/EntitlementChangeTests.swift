import Foundation
import BillingModel
import Testing

/// The `storefront.entitlements.v1` value: its fixed field names, explicit
/// nulls, and a round trip.
@Suite struct EntitlementChangeTests {
    static let info = EntitlementInfo(
        identifier: "premium", isActive: true, expiresAt: Date(timeIntervalSince1970: 1_790_086_400), willRenew: true, periodType: .normal,
        productID: "ls_2.20", provider: .lemonsqueezy, source: .subscription, latestPurchaseAt: Date(timeIntervalSince1970: 1_790_000_000),
        originalPurchaseAt: Date(timeIntervalSince1970: 1_790_000_000), unsubscribeDetectedAt: nil, billingIssueDetectedAt: nil, sandbox: true)

    static let change = EntitlementChange(
        id: "6b0f2d1e-evt", type: .granted, appUserID: "user-1", occurredAt: Date(timeIntervalSince1970: 1_790_000_001.5),
        cause: .init(kind: .providerEvent, provider: .lemonsqueezy, reference: "lemonsqueezy:evt_1"),
        before: EntitlementsResponse(entitlements: []), after: EntitlementsResponse(entitlements: [info]))

    @Test func encodesTheContractsFieldNames() throws {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(RecordCoding.encode(Self.change))) as? [String: Any])
        #expect(Set(json.keys) == ["id", "type", "app_user_id", "occurred_at", "cause", "before", "after"])
        #expect(json["type"] as? String == "entitlement.granted")
        #expect(json["occurred_at"] as? String == "2026-09-21T14:13:21.500Z")
        let cause = try #require(json["cause"] as? [String: Any])
        #expect(cause["kind"] as? String == "provider_event" && cause["provider"] as? String == "lemonsqueezy")
        let after = try #require(json["after"] as? [String: Any])
        #expect(after["success"] as? Bool == true)
        let first = try #require((after["entitlements"] as? [[String: Any]])?.first)
        #expect(first["identifier"] as? String == "premium" && first["is_active"] as? Bool == true)
    }

    @Test func aCauseWithoutProviderSaysNull() throws {
        let cause = EntitlementChange.Cause(kind: .claim, provider: nil, reference: "cmd-1")
        #expect(String(decoding: try RecordCoding.encode(cause), as: UTF8.self) == #"{"kind":"claim","provider":null,"reference":"cmd-1"}"#)
    }

    @Test func roundTrips() throws {
        let decoded = try RecordCoding.decode(EntitlementChange.self, from: try RecordCoding.encode(Self.change))
        #expect(decoded == Self.change)
        #expect(decoded.key == "user-1")
    }

    @Test func everyTypeHasItsContractName() {
        #expect(
            Set(EntitlementChange.Kind.allCases.map(\.rawValue)) == [
                "entitlement.granted", "entitlement.renewed", "entitlement.expiring", "entitlement.billing_issue", "entitlement.refunded",
                "entitlement.revoked", "entitlement.transferred",
            ])
    }
}
