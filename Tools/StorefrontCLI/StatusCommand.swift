import ServiceSettings
import Foundation
import BillingModel
import Postgres
import ProjectionStore
import Entitlements
import ServiceRuntime

/// `storefront status EMAIL` or `storefront status --user APP_USER_ID`: what
/// the status endpoint would answer for each app user with that email (or
/// for that one app user), plus every subscription and order behind it,
/// read from the projection (`DATABASE_URL`). Useful when a customer writes in.
/// The entitlements are judged as the checkout service would: `STOREFRONT_MODE`
/// (`test` unless `live`), `ENTITLEMENTS_FILE` and the grace settings. Whom
/// each form covers: ``StatusTarget``.
public enum StatusCommand {
    public static func run(
        _ arguments: CommandLineArguments, environment: Environment, now: Date = Date(),
        output: @Sendable (String) -> Void
    ) async throws {
        let target = try StatusTarget(arguments)
        var reader = ConfigReader(environment)
        let url = reader.required.string("DATABASE_URL")
        let resolver = EntitlementResolver.fromEnvironment(&reader, testDeployment: reader.string("STOREFRONT_MODE") != "live")
        let limits = PostgresSessionLimits.fromEnvironment(&reader, defaults: .maintenance)
        try reader.finish()

        var database = try PostgresConfiguration(url: url)
        database.limits = limits
        let pool = PostgresPool(configuration: database)
        do {
            try await report(target, pool: pool, resolver: resolver, now: now, output: output)
        } catch {
            await pool.close()
            throw error
        }
        await pool.close()
    }

    static func report(
        _ target: StatusTarget, pool: PostgresPool, resolver: EntitlementResolver, now: Date,
        output: @Sendable (String) -> Void
    ) async throws {
        let users = try await target.users(in: pool)
        let reader = SubscriptionStatusReader(pool: pool, resolver: resolver)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        for user in users {
            let snapshot = try await reader.snapshot(for: user, at: now)
            output("app user: \(user.appUserID.isEmpty ? "(none linked; matched by email)" : user.appUserID)")
            output(String(decoding: try encoder.encode(snapshot.response), as: UTF8.self))
            for subscription in snapshot.subscriptions {
                output(
                    "  subscription \(subscription.provider.rawValue):\(subscription.subscriptionID) status=\(subscription.status)"
                        + " active=\(snapshot.access(subscription).isActive) owner=\(subscription.appUserID ?? "-") plan=\(subscription.planName ?? "-")"
                        + " renews=\(subscription.renewsAt.map(Timestamp.format) ?? "-") ends=\(subscription.endsAt.map(Timestamp.format) ?? "-")")
            }
            for order in snapshot.orders {
                output(
                    "  order \(order.provider.rawValue):\(order.orderID) status=\(order.status) owner=\(order.appUserID ?? "-")"
                        + " subscription=\(order.subscriptionID ?? "-") product=\(order.productName ?? order.productID ?? "-")")
            }
        }
    }
}
