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
        var result: [String: [EntitlementInfo]] = [:]
        for user in appUserIDs {
            result[user] = resolver.entitlements(subscriptions: subscriptions[user] ?? [], orders: orders[user] ?? [], at: now)
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
