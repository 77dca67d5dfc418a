import Foundation
import BillingModel
import Postgres
import Entitlements

extension SubscriptionStatusReader {
    /// The subscriptions and orders that belong to `user` at `now`, read on
    /// `connection` (inside its transaction, if it has one): what
    /// ``snapshot(for:at:)`` answers from.
    /// - Throws: ``PostgresError``.
    public static func purchases(
        for user: ProjectionUser, at now: Date, on connection: PostgresConnection
    ) async throws -> (subscriptions: [SubscriptionState], orders: [ProjectedOrder]) {
        let subscriptions = try await connection.query(subscriptionsQuery(user, code: nil, now: now)).compactMap(subscription)
        let orders = try await connection.query(ordersQuery(user, now: now)).compactMap(order)
        return (subscriptions, orders)
    }

    /// The `GET /api/entitlements` list of the purchases each of `appUserIDs`
    /// owns (no email fallback: that one depends on the caller's token),
    /// computed the one way the checkout computes it (``EntitlementResolver``)
    /// from the rows the checkout's queries return, in their order and with
    /// their per-user limit (``rowLimit``), for all the users in two queries.
    /// - Returns: each user's list; a user who owns nothing has an empty one.
    /// - Throws: ``PostgresError``.
    public static func entitlements(
        ownedBy appUserIDs: [String], resolver: EntitlementResolver, at now: Date, on connection: PostgresConnection
    ) async throws -> [String: [EntitlementInfo]] {
        guard !appUserIDs.isEmpty else { return [:] }
        let users = try PostgresBind.array(Set(appUserIDs).sorted().map(\.postgresBind), of: .text)
        var subscriptions: [String: [SubscriptionState]] = [:]
        for row in try await connection.query(ownedSubscriptionsQuery(users)) {
            guard let state = try subscription(row), let owner = state.appUserID else { continue }
            subscriptions[owner, default: []].append(state)
        }
        var orders: [String: [ProjectedOrder]] = [:]
        for row in try await connection.query(ownedOrdersQuery(users)) {
            guard let order = try order(row), let owner = order.appUserID else { continue }
            orders[owner, default: []].append(order)
        }
        let grants = try await grants(of: appUserIDs, at: now, on: connection)
        var result: [String: [EntitlementInfo]] = [:]
        for user in appUserIDs {
            result[user] = resolver.entitlements(
                subscriptions: subscriptions[user] ?? [], orders: orders[user] ?? [], promotional: grants[user] ?? [], at: now)
        }
        return result
    }

    /// The promotional grants of each of `appUserIDs`: those running at `now`
    /// first, then the newest, at most ``rowLimit`` per user. The checkout
    /// refuses a grant beyond that many running ones, and running ones come
    /// first, so however many ended grants a user collects, the limit never
    /// hides one that gives access.
    /// - Throws: ``PostgresError``.
    public static func grants(of appUserIDs: [String], at now: Date, on connection: PostgresConnection) async throws -> [String: [ProjectedGrant]] {
        guard !appUserIDs.isEmpty else { return [:] }
        let users = try PostgresBind.array(Set(appUserIDs).sorted().map(\.postgresBind), of: .text)
        var result: [String: [ProjectedGrant]] = [:]
        let query: PostgresQuery = """
            SELECT grant_id, app_user_id, entitlement, starts_at, expires_at, revoked_at FROM (
                SELECT g.*, row_number() OVER (
                    PARTITION BY g.app_user_id
                    ORDER BY (g.revoked_at IS NULL AND g.expires_at > \(now)) DESC, g.starts_at DESC, g.grant_id) AS n
                FROM entitlement_grants g WHERE g.app_user_id = ANY(\(users)::text[])) AS ranked
            WHERE n <= \(rowLimit)
            ORDER BY app_user_id, n
            """
        for row in try await connection.query(query) {
            let (id, user, entitlement, startsAt, expiresAt, revokedAt) = try row.decode((String, String, String, Date, Date, Date?).self)
            result[user, default: []].append(
                ProjectedGrant(grantID: id, appUserID: user, entitlement: entitlement, startsAt: startsAt, expiresAt: expiresAt, revokedAt: revokedAt)
            )
        }
        return result
    }

    /// ``subscriptionsQuery(_:code:now:)`` for many owners at once (no email
    /// branch): the same order and limit within each owner.
    static func ownedSubscriptionsQuery(_ users: PostgresBind) -> PostgresQuery {
        """
        SELECT * FROM (
            SELECT \(unescaped: subscriptionColumns),
                row_number() OVER (PARTITION BY s.app_user_id
                    ORDER BY COALESCE(s.source_updated_at, s.projected_at) DESC, s.projected_at DESC, s.provider, s.subscription_id) AS n
            FROM subscriptions s WHERE s.app_user_id = ANY(\(users)::text[])) AS ranked
        WHERE n <= \(rowLimit)
        ORDER BY app_user_id, n
        """
    }

    /// ``ordersQuery(_:now:)`` for many owners at once, likewise.
    static func ownedOrdersQuery(_ users: PostgresBind) -> PostgresQuery {
        """
        SELECT * FROM (
            SELECT \(unescaped: orderColumns),
                row_number() OVER (PARTITION BY r.app_user_id ORDER BY r.paid_at DESC NULLS LAST, r.provider, r.order_id) AS n
            FROM orders r WHERE r.app_user_id = ANY(\(users)::text[])) AS ranked
        WHERE n <= \(rowLimit)
        ORDER BY app_user_id, n
        """
    }
}
