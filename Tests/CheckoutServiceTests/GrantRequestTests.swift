import BillingModel
import Entitlements
import Foundation
import HTTPServer
import Testing

@testable import CheckoutService

/// Every way a grant request is refused before anything is published, and
/// the end an accepted one gets.
@Suite struct GrantRequestTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let withFile: EntitlementResolver = {
        var premium = EntitlementsConfiguration.Entitlement(identifier: "premium")
        premium.grantingIDs = [.lemonsqueezy: ["variants": ["3"]]]
        return EntitlementResolver(configuration: EntitlementsConfiguration(entitlements: [premium]), policy: AccessPolicy(testDeployment: true))
    }()
    static let withoutFile = EntitlementResolver(policy: AccessPolicy(testDeployment: true))

    static func body(
        _ entitlement: String = "premium", expiresAt: String? = nil, duration: String? = "P30D", reason: String? = nil
    )
        -> GrantRequest.Body
    {
        GrantRequest.Body(entitlement: entitlement, expiresAt: expiresAt, duration: duration, reason: reason)
    }

    static func refusal(_ body: GrantRequest.Body, _ resolver: EntitlementResolver = withFile) -> (HTTPStatus, String?) {
        do {
            _ = try GrantRequest.check(body, resolver: resolver, now: now)
            return (.ok, nil)
        } catch {
            return (error.status, error.code)
        }
    }

    @Test func aDurationOrAnEndSetsTheGrantsEnd() throws {
        let byDuration = try GrantRequest.check(Self.body(duration: "P30D"), resolver: Self.withFile, now: Self.now)
        #expect(byDuration.startsAt == Self.now && byDuration.expiresAt == Self.now.addingTimeInterval(30 * 86_400))
        let end = Timestamp.format(Self.now.addingTimeInterval(3600))
        let byEnd = try GrantRequest.check(Self.body(expiresAt: end, duration: nil, reason: "ticket 42"), resolver: Self.withFile, now: Self.now)
        #expect(byEnd.expiresAt == Self.now.addingTimeInterval(3600) && byEnd.reason == "ticket 42")
        // Without an entitlements file, each product is its entitlement, named by its catalog id.
        #expect(try GrantRequest.check(Self.body("ls_2"), resolver: Self.withoutFile, now: Self.now).entitlement == "ls_2")
    }

    @Test func badRequestsAreRefusedWithTheirCodes() {
        let cases: [(GrantRequest.Body, EntitlementResolver, HTTPStatus, String)] = [
            (Self.body("gold"), Self.withFile, .unprocessableContent, "unknown_entitlement"),
            (Self.body("premium"), Self.withoutFile, .unprocessableContent, "unknown_entitlement"),
            (Self.body(""), Self.withFile, .badRequest, "invalid_entitlement"),
            (Self.body("pre mium"), Self.withFile, .badRequest, "invalid_entitlement"),
            (Self.body(String(repeating: "p", count: 129)), Self.withFile, .badRequest, "invalid_entitlement"),
            (Self.body(duration: nil), Self.withFile, .badRequest, "grant_end_missing"),
            (Self.body(expiresAt: "2030-01-01T00:00:00Z", duration: "P1D"), Self.withFile, .badRequest, "grant_end_ambiguous"),
            (Self.body(duration: "30 days"), Self.withFile, .badRequest, "invalid_duration"),
            (Self.body(expiresAt: "tomorrow", duration: nil), Self.withFile, .badRequest, "invalid_expires_at"),
            (
                Self.body(expiresAt: Timestamp.format(Self.now.addingTimeInterval(-86_400)), duration: nil), Self.withFile, .unprocessableContent,
                "grant_end_in_past"
            ),
            (Self.body(duration: "PT30S"), Self.withFile, .unprocessableContent, "grant_end_in_past"),
            (Self.body(duration: "P11Y"), Self.withFile, .unprocessableContent, "grant_too_long"),
            (Self.body(duration: "P999999999D"), Self.withFile, .unprocessableContent, "grant_too_long"),
            (Self.body(reason: String(repeating: "r", count: 501)), Self.withFile, .badRequest, "invalid_reason"),
        ]
        for (body, resolver, status, code) in cases {
            let (got, gotCode) = Self.refusal(body, resolver)
            #expect(got == status && gotCode == code, "\(body): \(got) \(gotCode ?? "-")")
        }
    }

    @Test func grantIDsFromAnIdempotencyKeyAreStableAndPrivateToTheCaller() {
        let id = GrantRoutes.grantID(keyID: "k1", user: "u", idempotencyKey: "support-42")
        #expect(id == GrantRoutes.grantID(keyID: "k1", user: "u", idempotencyKey: "support-42"))
        #expect(id != GrantRoutes.grantID(keyID: "k2", user: "u", idempotencyKey: "support-42"))
        #expect(id != GrantRoutes.grantID(keyID: "k1", user: "v", idempotencyKey: "support-42"))
        #expect(GrantRoutes.isGrantID(id) && GrantRoutes.isGrantID(GrantRoutes.newGrantID()))
        for bad in ["grant_", "grant_XYZ", "grant_0123456789abcdef0123456789abcdeF", "0123456789abcdef0123456789abcdef", "grant_../../x"] {
            #expect(!GrantRoutes.isGrantID(bad), "\(bad)")
        }
    }
}
