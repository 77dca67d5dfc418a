import Basics
import Foundation
import Models
import Postgres
import Projection
import ServiceRuntime

/// `storefront status EMAIL`: what the status endpoint would answer for each
/// app user with that email, plus every subscription and order behind it,
/// read from the projection (`DATABASE_URL`). Useful when a customer writes in.
/// The entitlements are judged as the checkout service would: `STOREFRONT_MODE`
/// (`test` unless `live`), `ENTITLEMENTS_FILE` and the grace settings. The
/// operator vouches for the email, so it is treated as verified.
public enum StatusCommand {
    public static func run(
        _ arguments: CommandLineArguments, environment: Environment, now: Date = Date(),
        output: @Sendable (String) -> Void
    ) async throws {
        guard let email = arguments.words.dropFirst().first, EmailAddress.isValid(email) else {
            throw CommandLineArguments.UsageError(description: "usage: storefront status EMAIL")
        }
        var reader = ConfigReader(environment)
        let url = reader.required.string("DATABASE_URL")
        let resolver = EntitlementResolver.fromEnvironment(&reader, testDeployment: reader.string("STOREFRONT_MODE") != "live")
        let limits = PostgresSessionLimits.fromEnvironment(&reader, defaults: .maintenance)
        try reader.finish()

        var database = try PostgresConfiguration(url: url)
        database.limits = limits
        let pool = PostgresPool(configuration: database)
        do {
            try await report(email: email, pool: pool, resolver: resolver, now: now, output: output)
        } catch {
            await pool.close()
            throw error
        }
        await pool.close()
    }

    static func report(
        email: String, pool: PostgresPool, resolver: EntitlementResolver, now: Date,
        output: @Sendable (String) -> Void
    ) async throws {
        let known = try await pool.query("SELECT app_user_id FROM app_users WHERE lower(email) = lower(\(email)) ORDER BY app_user_id")
            .map { try $0.decode(String.self) }
        // Without a known app user, the reader still finds rows by email alone.
        let users =
            known.isEmpty
            ? [ProjectionUser(appUserID: "", verifiedEmail: email)]
            : known.map { ProjectionUser(appUserID: $0, verifiedEmail: email) }
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
