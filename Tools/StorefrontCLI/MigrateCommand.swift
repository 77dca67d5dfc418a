import ServiceSettings
import CheckoutService
import Kafka
import BillingModel
import Postgres
import ProjectionStore
import ServiceRuntime
import Telemetry
import WebhookSenderService

/// `storefront migrate`: applies the projection's migrations, the
/// checkout's own (``CheckoutSchema``) and the webhook sender's (``WebhookSenderSchema``) to `DATABASE_URL` (once each, under an
/// advisory lock, so it is safe beside starting services) and, when
/// `KAFKA_BROKERS` is set, creates the topics. Connect as the schema owner:
/// the migrations also create the services' group roles (the user needs
/// CREATEROLE) and grant them their tables, which the services' own login
/// users cannot do.
public enum MigrateCommand {
    /// The versions this run applied, per schema.
    public struct Applied: Sendable, Equatable {
        public var projection: [Int]
        public var checkout: [Int]
        public var webhookSender: [Int] = []

        public var isEmpty: Bool { projection.isEmpty && checkout.isEmpty && webhookSender.isEmpty }

        /// `projection 1, 2; checkout 1`, leaving out a schema with nothing applied.
        public var summary: String {
            [("projection", projection), ("checkout", checkout), ("webhook-sender", webhookSender)].filter { !$0.1.isEmpty }
                .map { "\($0.0) \($0.1.map(String.init).joined(separator: ", "))" }.joined(separator: "; ")
        }
    }

    public static func run(environment: Environment, logger: Logger) async throws -> Applied {
        var reader = ConfigReader(environment, declared: StorefrontCLIBinary.migrate)
        let url = reader.required.string(.databaseURL)
        let messaging =
            !reader.isSet(.migrateKafkaBrokers)
            ? nil : MessagingSettings.fromEnvironment(&reader, service: "storefront-cli", logger: logger)
        // The migrator lifts the statement limit for its own run; the rest still guard against a dead server.
        let limits = PostgresSessionLimits.fromEnvironment(&reader, defaults: .maintenance)
        try reader.finish()

        var database = try PostgresConfiguration(url: url)
        database.limits = limits
        let pool = PostgresPool(configuration: database)
        let applied: Applied
        do {
            let projection = try await ProjectionSchema.migrate(pool: pool)
            var result = Applied(projection: projection, checkout: try await CheckoutSchema.migrate(pool: pool))
            result.webhookSender = try await WebhookSenderSchema.migrate(pool: pool)
            applied = result
        } catch {
            await pool.close()
            throw error
        }
        await pool.close()
        if let messaging { try await messaging.ensureTopics(Topics.all) }
        return applied
    }
}
