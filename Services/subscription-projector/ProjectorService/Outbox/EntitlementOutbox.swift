import Foundation
import BillingModel
import Postgres
import ProjectionStore
import Entitlements

/// The transactional outbox of entitlement changes: the last step of every
/// projector batch, in the batch's transaction (``ProjectionWriter/write(_:)``).
///
/// It takes the app users whose purchases the batch wrote (the
/// `entitlement_touched` rows the triggers left, removed here: migration 11's
/// triggers leave out rows whose entitlement columns did not change), locks
/// them in a stable order, computes their entitlements the
/// way `GET /api/entitlements` does, for all of them in two queries
/// (``SubscriptionStatusReader/entitlements(ownedBy:resolver:at:on:)``), and
/// compares them with the list last announced (`entitlement_states`).
/// A user whose list changed gets one `entitlement_outbox` row, when the
/// change is one of ``EntitlementChange/Kind`` (``EntitlementChangeClassifier``),
/// and the new list is stored. Equal lists (a redelivered batch, a write
/// that changed nothing the answer shows) announce nothing.
///
/// Set-based whatever the batch: the users, the states and the outbox rows
/// go to PostgreSQL as one array parameter per column, and each change's
/// cause is a lookup in an index of the batch (``EntitlementCauseFinder``).
/// The lists and records are written by hand (``EntitlementInfo/encodedList(_:)``,
/// ``EntitlementChange/encodedChange()``), the bytes `RecordCoding` would write.
///
/// The per-user lock orders two replicas' changes of one user: the second
/// waits for the first to commit, so its row gets a later `seq`, and the
/// relay (``EntitlementOutboxRelay``) publishes in `seq` order.
///
/// Known limits (docs/architecture.md, "Entitlement changes"): a user with
/// no stored list (first change after the upgrade) is compared with an empty
/// one; the email fallback is not applied (it depends on the caller's
/// token); `product_id` is the catalog's fallback id (the projector has no
/// live catalog); a change that only the passing of time makes (a period
/// ending without any event) is announced with the next write that changes
/// one of the user's purchases.
public struct EntitlementOutbox: Sendable {
    /// How purchases become entitlements: the checkout's settings (`ENTITLEMENTS_FILE`, `ENTITLEMENT_*`).
    public let resolver: EntitlementResolver
    let now: @Sendable () -> Date
    let newID: @Sendable () -> String

    public init(
        resolver: EntitlementResolver, now: @escaping @Sendable () -> Date = { Date() },
        newID: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() }
    ) {
        self.resolver = resolver
        self.now = now
        self.newID = newID
    }

    /// Records the changes of every user the transaction's writes touched.
    /// - Parameter inputs: the batch, to name each change's cause (``EntitlementCauseFinder``).
    /// - Returns: how many changes were recorded.
    /// - Throws: ``PostgresError``, or an encoding error (the batch then fails whole and is retried).
    @discardableResult
    public func record(after inputs: [ProjectionInput], on connection: PostgresConnection) async throws -> Int {
        let byUser = Dictionary(grouping: try await Self.takeTouches(on: connection), by: \.appUserID)
        guard !byUser.isEmpty else { return 0 }
        let users = byUser.keys.sorted()
        let list = try PostgresBind.array(users.map(\.postgresBind), of: .text)
        // Two-key advisory locks: a key space apart from the batch's purchase
        // locks. Taken in the order of the keys themselves, so two batches
        // never wait on each other in a circle, even when two users' names hash alike.
        _ = try await connection.query(
            """
            SELECT count(pg_advisory_xact_lock(4541012, h)) FROM (
                SELECT DISTINCT hashtext(u) AS h FROM unnest(\(list)::text[]) AS u ORDER BY 1) AS users
            """)
        var announced: [String: String] = [:]
        for row in try await connection.query("SELECT app_user_id, entitlements FROM entitlement_states WHERE app_user_id = ANY(\(list)::text[])") {
            let (user, entitlements) = try row.decode((String, String).self)
            announced[user] = entitlements
        }

        let at = now()
        let currentLists = try await SubscriptionStatusReader.entitlements(ownedBy: users, resolver: resolver, at: at, on: connection)
        let causes = EntitlementCauseFinder(inputs)
        var states: [[PostgresBind]] = []
        var changes: [[PostgresBind]] = []
        for user in users {
            let touches = byUser[user] ?? []
            let afterText = String(decoding: EntitlementInfo.encodedList(currentLists[user] ?? []), as: UTF8.self)
            let beforeText = announced[user] ?? "[]"
            guard afterText != beforeText else { continue }
            states.append([user.postgresBind, afterText.postgresBind])
            // Both sides as the record carries them (timestamps to the millisecond), so they compare alike.
            let before = try RecordCoding.decode([EntitlementInfo].self, from: Array(beforeText.utf8))
            let after = try (currentLists[user] ?? []).map { try $0.asRecorded() }
            guard
                let kind = EntitlementChangeClassifier.classify(before: before, after: after, transferred: touches.contains(where: \.transferred)),
                let cause = causes.cause(of: touches, before: before, after: after)
            else { continue }
            let change = EntitlementChange(
                id: newID(), type: kind, appUserID: user, occurredAt: at, cause: cause,
                before: EntitlementsResponse(entitlements: before), after: EntitlementsResponse(entitlements: after))
            let record = String(decoding: change.encodedChange(), as: UTF8.self)
            changes.append([change.id.postgresBind, user.postgresBind, kind.rawValue.postgresBind, record.postgresBind])
        }
        try await Self.store(states: states, changes: changes, on: connection)
        return changes.count
    }

    /// Removes and returns the transaction's touched purchases (and any a
    /// writer without this step left committed: they are announced now).
    static func takeTouches(on connection: PostgresConnection) async throws -> [EntitlementTouch] {
        try await connection.query("DELETE FROM entitlement_touched RETURNING app_user_id, provider, purchase_type, purchase_id, transferred")
            .compactMap { row in
                let (user, provider, type, id, transferred) = try row.decode((String, String, String, String, Bool).self)
                guard let purchaseType = EntitlementTouch.Kind(rawValue: type) else { return nil }
                return EntitlementTouch(appUserID: user, provider: provider, purchaseType: purchaseType, purchaseID: id, transferred: transferred)
            }
    }

    /// The new announced lists (user, entitlements) and the outbox rows (id,
    /// user, type, record): one statement each, whatever the count, each
    /// column one array parameter; the outbox rows keep their order (`seq`).
    static func store(states: [[PostgresBind]], changes: [[PostgresBind]], on connection: PostgresConnection) async throws {
        if !states.isEmpty {
            _ = try await connection.execute(
                PostgresQuery(
                    unsafeSQL: """
                        INSERT INTO entitlement_states (app_user_id, entitlements)
                        SELECT * FROM unnest($1::text[], $2::text[])
                        ON CONFLICT (app_user_id) DO UPDATE SET entitlements = EXCLUDED.entitlements, updated_at = now()
                        """, binds: try PostgresBind.columns(states, types: [.text, .text])))
        }
        guard !changes.isEmpty else { return }
        _ = try await connection.execute(
            PostgresQuery(
                unsafeSQL: """
                    INSERT INTO entitlement_outbox (event_id, app_user_id, event_type, record)
                    SELECT c1, c2, c3, c4 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS r(c1, c2, c3, c4, n)
                    ORDER BY n
                    """, binds: try PostgresBind.columns(changes, types: [.text, .text, .text, .text])))
    }
}
