import Foundation
import Kafka
import BillingModel
import Postgres
import ProjectionStore
import Synchronization
import TestSupport
import Testing
@testable import ProjectorService

/// Promotional grants through the projector's real write path and
/// PostgreSQL: a grant is recorded once with who gave it and announced as
/// `entitlement.granted` with `cause: grant`; its revocation ends it once
/// and is announced as `entitlement.revoked` with `cause: revoke`; the
/// entitlement answer reads both.
@Suite struct GrantApplyTests {
    static let t0 = EntitlementOutboxTests.t0

    static func record(_ command: GrantCommand, offset: Int64) throws -> KafkaConsumerRecord {
        Support.record(Topics.commands, key: command.key, value: try RecordCoding.encode(command), offset: offset)
    }

    static func grant(_ id: String, user: String = "u-grant", entitlement: String = "ls_2", days: Double = 30) -> GrantCommand {
        GrantCommand(
            commandID: "give-\(id)", grantID: id, appUserID: user,
            action: .grant(entitlement: entitlement, startsAt: t0, expiresAt: t0.addingTimeInterval(days * 86_400)),
            requestedBy: "api_key:k1", requestedAt: t0, reason: "ticket 7")
    }

    static func revoke(_ id: String, user: String = "u-grant", at offset: TimeInterval) -> GrantCommand {
        GrantCommand(
            commandID: "revoke-\(id)", grantID: id, appUserID: user, action: .revoke, requestedBy: "api_key:k2",
            requestedAt: t0.addingTimeInterval(offset))
    }

    @Test func aGrantAndItsRevocationAreRecordedOnceAndAnnounced() async throws {
        try await Support.withDatabase { pool in
            let clock = EntitlementOutboxTests.TestClock()
            let projector = EntitlementOutboxTests.projector(pool, clock: clock)
            clock.set(60)
            let given = try Self.record(Self.grant("grant_a"), offset: 1)
            _ = try await projector.apply([given])
            _ = try await projector.apply([given]) // redelivered: nothing new
            let entitlements = try await pool.withConnection { connection in
                try await SubscriptionStatusReader.entitlements(
                    ownedBy: ["u-grant"], resolver: MoneyBackTests.resolver, at: clock.now.withLock { $0 }, on: connection)
            }
            let info = try #require(entitlements["u-grant"]?.first)
            #expect(info.isActive && info.store == "promotional" && info.grantID == "grant_a" && info.source == .grant)

            clock.set(3600)
            // A revocation of another user's grant changes nothing.
            _ = try await projector.apply([try Self.record(Self.revoke("grant_a", user: "someone-else", at: 3000), offset: 2)])
            let revoke = try Self.record(Self.revoke("grant_a", at: 3500), offset: 3)
            _ = try await projector.apply([revoke])
            _ = try await projector.apply([try Self.record(Self.revoke("grant_a", at: 3550), offset: 4)]) // a second revocation: the first stands

            let changes = try await EntitlementOutboxTests.outbox(pool)
            #expect(changes.map(\.type) == [.granted, .revoked], "\(changes.map(\.type))")
            #expect(
                changes.map(\.cause) == [
                    .init(kind: .grant, provider: nil, reference: "grant_a"), .init(kind: .revoke, provider: nil, reference: "grant_a"),
                ])
            #expect(changes.last?.after.entitlements.first?.isActive == false)
            #expect(changes.last?.after.entitlements.first?.expiresAt == Self.t0.addingTimeInterval(3500))

            let rows = try await pool.query(
                "SELECT granted_by, reason, revoked_by, revoked_at, revoke_command_id FROM entitlement_grants WHERE grant_id = 'grant_a'")
            let (grantedBy, reason, revokedBy, revokedAt, revokeCommand) = try #require(rows.first).decode(
                (String, String?, String?, Date?, String?).self)
            #expect(rows.count == 1 && grantedBy == "api_key:k1" && reason == "ticket 7" && revokedBy == "api_key:k2")
            #expect(revokedAt == Self.t0.addingTimeInterval(3500) && revokeCommand == "revoke-grant_a")
        }
    }

    @Test func aRevocationOfAnUnknownGrantChangesNothing() async throws {
        try await Support.withDatabase { pool in
            let clock = EntitlementOutboxTests.TestClock()
            let projector = EntitlementOutboxTests.projector(pool, clock: clock)
            _ = try await projector.apply([try Self.record(Self.revoke("grant_missing", at: 10), offset: 1)])
            #expect(try await EntitlementOutboxTests.outbox(pool).isEmpty)
            #expect(try await pool.query("SELECT 1 FROM entitlement_grants").isEmpty)
        }
    }
}
