import BillingModel
@testable import CheckoutService
import Foundation
import HTTPServer
import Postgres
import ProjectionStore
import TestSupport
import Testing

/// The grant routes against PostgreSQL and the broker, with no projector:
/// what is published is answered `202 pending`; rows the projector would
/// write are inserted here, and the routes read them as it left them.
@Suite struct GrantRoutesTests {
    static func grantRow(_ pool: PostgresPool, id: String, user: String, entitlement: String = "ls_2", revoked: Bool = false) async throws {
        let now = Date()
        try await pool.execute(
            """
            INSERT INTO entitlement_grants (grant_id, app_user_id, entitlement, starts_at, expires_at, granted_by, grant_command_id, requested_at,
                revoked_at, revoked_by)
            VALUES (\(id), \(user), \(entitlement), \(now), \(now.addingTimeInterval(86_400)), 'api_key:k', \("c-" + id), \(now),
                \(revoked ? now : nil), \(revoked ? "api_key:k" : nil))
            """)
    }

    @Test func aGrantIsPublishedAndAnsweredPendingThenReplayedFromTheProjection() async throws {
        try await Harness.with { harness in
            let key = try await ServerAPITests.newKey(harness.pool, scopes: [.entitlementsWrite])
            let headers = [("X-API-Key", key.text), ("Idempotency-Key", "ticket-1")]
            let body = #"{"entitlement":"ls_2","duration":"P7D"}"#
            // No projector here: published, not yet applied.
            let first = try await harness.request(.post, "/api/users/u-grant/grants", token: nil, json: body, headers: headers)
            #expect(first.status == .accepted, "\(first.text)")
            let pending = try RecordCoding.decode(EntitlementGrant.self, from: first.body)
            #expect(pending.state == .pending && pending.grantedBy == "api_key:\(key.keyID)" && pending.entitlement == "ls_2")
            // What the projector writes for it: the same key now replays it.
            try await Self.grantRow(harness.pool, id: pending.grantID, user: "u-grant")
            let again = try await harness.request(.post, "/api/users/u-grant/grants", token: nil, json: body, headers: headers)
            #expect(again.status == .created && again.headers["Idempotent-Replayed"] == "true", "\(again.text)")
            #expect(try RecordCoding.decode(EntitlementGrant.self, from: again.body).grantID == pending.grantID)
            // The same key for another entitlement is refused.
            let other = try await harness.request(
                .post, "/api/users/u-grant/grants", token: nil, json: #"{"entitlement":"ls_9","duration":"P7D"}"#, headers: headers)
            #expect(other.status == .unprocessableContent && other.text.contains("idempotency_key_reused"), "\(other.text)")
            // The entitlement answer shows it, promotional.
            let read = try await harness.request(.get, "/api/users/u-grant/entitlements", token: nil, headers: [("X-API-Key", key.text)])
            #expect(read.text.contains(#""store":"promotional""#) && read.text.contains(pending.grantID), "\(read.text)")
        }
    }

    @Test func revocationsAreRefusedForOthersAndRepeatedOnes() async throws {
        try await Harness.with { harness in
            let key = try await ServerAPITests.newKey(harness.pool, scopes: [.entitlementsWrite])
            let mine = GrantRoutes.newGrantID(), done = GrantRoutes.newGrantID()
            try await Self.grantRow(harness.pool, id: mine, user: "u-revoke")
            try await Self.grantRow(harness.pool, id: done, user: "u-revoke", revoked: true)
            let headers = [("X-API-Key", key.text)]
            let foreign = try await harness.request(.delete, "/api/users/u-other/grants/\(mine)", token: nil, headers: headers)
            #expect(foreign.status == .notFound && foreign.text.contains("grant_not_found"))
            let missing = try await harness.request(.delete, "/api/users/u-revoke/grants/\(GrantRoutes.newGrantID())", token: nil, headers: headers)
            #expect(missing.status == .notFound)
            let repeated = try await harness.request(.delete, "/api/users/u-revoke/grants/\(done)", token: nil, headers: headers)
            let repeatedGrant = try RecordCoding.decode(EntitlementGrant.self, from: repeated.body)
            #expect(repeated.status == .ok && repeatedGrant.revokedAt != nil)
            // Published; no projector applies it here.
            let revoked = try await harness.request(.delete, "/api/users/u-revoke/grants/\(mine)", token: nil, headers: headers)
            #expect(revoked.status == .accepted, "\(revoked.text)")
            let answer = try RecordCoding.decode(EntitlementGrant.self, from: revoked.body)
            #expect(answer.state == .pending && answer.revokedBy == "api_key:\(key.keyID)")
        }
    }

    @Test func aUserWithAHundredRunningGrantsIsRefusedAnother() async throws {
        try await Harness.with { harness in
            let key = try await ServerAPITests.newKey(harness.pool, scopes: [.entitlementsWrite])
            for _ in 0..<GrantRoutes.maximumRunningGrants {
                try await Self.grantRow(harness.pool, id: GrantRoutes.newGrantID(), user: "u-many")
            }
            let refused = try await harness.request(
                .post, "/api/users/u-many/grants", token: nil, json: #"{"entitlement":"ls_2","duration":"P7D"}"#, headers: [("X-API-Key", key.text)])
            #expect(refused.status == .unprocessableContent && refused.text.contains("too_many_grants"), "\(refused.text)")
        }
    }

    @Test func endedGrantsNeverHideARunningOneFromTheAnswer() async throws {
        try await Harness.with { harness in
            let key = try await ServerAPITests.newKey(harness.pool, scopes: [.entitlementsWrite])
            let now = Date()
            // One long grant, then more short ones given and revoked after it than the read keeps.
            let running = GrantRoutes.newGrantID()
            try await harness.pool.execute(
                """
                INSERT INTO entitlement_grants (grant_id, app_user_id, entitlement, starts_at, expires_at, granted_by, grant_command_id, requested_at)
                VALUES (\(running), 'u-churned', 'ls_2', \(now.addingTimeInterval(-86_400)), \(now.addingTimeInterval(86_400)), 'api_key:k',
                    \("c-" + running), \(now))
                """)
            for _ in 0..<(SubscriptionStatusReader.rowLimit + 5) {
                try await Self.grantRow(harness.pool, id: GrantRoutes.newGrantID(), user: "u-churned", revoked: true)
            }
            let read = try await harness.request(.get, "/api/users/u-churned/entitlements", token: nil, headers: [("X-API-Key", key.text)])
            let list = try RecordCoding.decode(EntitlementsResponse.self, from: read.body).entitlements
            #expect(list.first?.grantID == running && list.first?.isActive == true, "\(read.text.prefix(400))")
        }
    }
}
