import CheckoutService
import Foundation
import HTTPClient
import HTTPServer
import Kafka
import MessagingSetup
import Models
import Postgres
import ProviderSetup
import Providers
import ServiceHTTP
import ServiceRuntime
import Telemetry

/// `checkout`: creates hosted checkouts and answers subscription status,
/// cancel and resume for the apps. Configuration comes from the environment:
/// `PORT` (default 8082) and the other HTTP settings, `DATABASE_URL`,
/// `KAFKA_BROKERS`, the providers' settings, `AUTH_JWT_SECRET` /
/// `AUTH_JWT_PUBLIC_KEY_FILE` (+ `AUTH_JWT_ISSUER`, `AUTH_JWT_AUDIENCE`,
/// `AUTH_JWT_LEEWAY`) or `AUTH_DISABLED=true`, `CHECKOUT_CATALOG_REFRESH`,
/// `CHECKOUT_REDIRECT_URL`, `CHECKOUT_EXPIRY`, `CHECKOUT_MAX_BODY_BYTES`, `LOG_LEVEL`.
@main
struct CheckoutMain {
    static func main() async {
        var reader = ConfigReader(Environment())
        let logger = Logger.bootstrap(service: "checkout", reader: &reader)
        let http = HTTPServerConfiguration.fromEnvironment(&reader, defaultPort: 8082)
        let configuration = CheckoutConfiguration.fromEnvironment(&reader)
        let auth = AuthConfiguration.fromEnvironment(&reader)
        let messaging = MessagingSettings.fromEnvironment(&reader, service: "checkout", logger: logger)
        let databaseURL = reader.required.string("DATABASE_URL")
        let maxConnections = reader.int("DATABASE_MAX_CONNECTIONS", default: 10, in: 1...200)
        let providers = ProviderSetup.configuration(&reader)
        var database: PostgresConfiguration?
        do {
            database = try PostgresConfiguration(url: databaseURL)
        } catch {
            if !databaseURL.isEmpty { reader.report("DATABASE_URL", "not a valid postgres:// URL") }
        }
        do {
            try reader.finish()
        } catch {
            ServiceConfigurationFailure.exit(error, logger: logger)
        }
        guard let database, let providers else {
            ServiceConfigurationFailure.exit(CheckoutStartupFailure("configuration incomplete"), logger: logger)
        }

        let metrics = MetricsRegistry()
        ProcessMetrics.register(into: metrics)
        let pool = PostgresPool(configuration: database, options: PostgresPoolConfiguration(maximumConnections: maxConnections))
        let producer: KafkaProducer
        let admin: KafkaAdmin
        do {
            try await CheckoutSchema.migrate(pool: pool)
            try await messaging.ensureTopics()
            producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: messaging.client))
            admin = try KafkaAdmin(configuration: messaging.client)
        } catch {
            logger.critical("checkout could not start: \(error)")
            exit(1)
        }
        let application = buildCheckoutApplication(
            configuration: configuration, auth: auth,
            providers: ProviderRegistry(configuration: providers, httpClient: HTTPClient()),
            pool: pool, publisher: KafkaRecordPublisher(producer: producer),
            brokerCheck: { _ = try await admin.partitionCount(topic: Topics.checkouts, timeout: .seconds(2)) },
            http: http, logger: logger, metrics: metrics)

        logger.info("checkout starting", metadata: [
            "http.port": String(http.port),
            "checkout.providers": application.catalog.providers.map(\.provider.rawValue).joined(separator: ","),
            "auth": auth.isDisabled ? "disabled" : "jwt",
        ])
        // The producer drains last: services stop in reverse order, HTTP first.
        let services: [any Service] = [ProducerService(producer: producer, logger: logger)] + application.services
        do {
            try await ServiceGroup(services: services, logger: logger).run()
        } catch {
            logger.critical("checkout stopped: \(error)")
            await pool.close()
            exit(1)
        }
        await pool.close()
    }
}

/// A start-up problem found after the configuration was read.
struct CheckoutStartupFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
