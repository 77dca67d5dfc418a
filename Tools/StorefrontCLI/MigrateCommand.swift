import MessagingSetup
import Postgres
import Projection
import ServiceRuntime
import Telemetry

/// `storefront migrate`: applies the projection's migrations to
/// `DATABASE_URL` (once each, under an advisory lock, so it is safe beside
/// starting projectors) and, when `KAFKA_BROKERS` is set, creates the topics.
public enum MigrateCommand {
    public static func run(environment: Environment, logger: Logger) async throws -> [Int] {
        var reader = ConfigReader(environment)
        let url = reader.required.string("DATABASE_URL")
        let messaging = reader.environment["KAFKA_BROKERS"] == nil
            ? nil : MessagingSettings.fromEnvironment(&reader, service: "storefront-cli", logger: logger)
        try reader.finish()

        let pool = PostgresPool(configuration: try PostgresConfiguration(url: url))
        let applied: [Int]
        do {
            applied = try await ProjectionSchema.migrate(pool: pool)
        } catch {
            await pool.close()
            throw error
        }
        await pool.close()
        if let messaging { try await messaging.ensureTopics() }
        return applied
    }
}
