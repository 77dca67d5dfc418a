import Foundation
import Models
import Postgres

extension SubscriptionStatusReader {
    /// The subscriptions and orders that belong to `user` at `now`, read on
    /// `connection` (inside its transaction, if it has one): what
    /// ``snapshot(for:at:)`` answers from, and what the projector's outbox
    /// reads after a batch's writes.
    /// - Throws: ``PostgresError``.
    public static func purchases(
        for user: ProjectionUser, at now: Date, on connection: PostgresConnection
    ) async throws -> (subscriptions: [SubscriptionState], orders: [ProjectedOrder]) {
        let subscriptions = try await connection.query(subscriptionsQuery(user, code: nil, now: now)).compactMap(subscription)
        let orders = try await connection.query(ordersQuery(user, now: now)).compactMap(order)
        return (subscriptions, orders)
    }

    /// The `GET /api/entitlements` list of the purchases `appUserID` owns
    /// (no email fallback: that one depends on the caller's token), computed
    /// the one way the checkout computes it (``EntitlementResolver``).
    /// - Throws: ``PostgresError``.
    public static func entitlements(
        ownedBy appUserID: String, resolver: EntitlementResolver, at now: Date, on connection: PostgresConnection
    ) async throws -> [EntitlementInfo] {
        let owned = try await purchases(for: ProjectionUser(appUserID: appUserID, verifiedEmail: nil), at: now, on: connection)
        return resolver.entitlements(subscriptions: owned.subscriptions, orders: owned.orders, at: now)
    }
}
