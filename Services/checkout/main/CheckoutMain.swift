import ServiceSettings
import Catalog
import Foundation
import CheckoutService
import HTTPClient
import HTTPServer
import Kafka
import BillingModel
import Postgres
import Entitlements
import ProviderBudget
import ProviderConfiguration
import Providers
import ServiceRuntime
import Telemetry
import Webhooks
import EntitlementSigning

/// `checkout`: creates hosted checkouts and answers subscription status,
/// cancel and resume for the apps. Its settings are declared in
/// ``CheckoutBinary/settings``: `checkout --help-settings` lists them.
@main
struct CheckoutMain {
    static func main() async {
        await ServiceLauncher.run(
            "checkout", settings: CheckoutBinary.settings,
            read: { reader, logger in
                let databaseURL = reader.required.string(.databaseURL)
                var database: PostgresConfiguration?
                do {
                    database = try PostgresConfiguration(url: databaseURL)
                } catch {
                    if !databaseURL.isEmpty { reader.report(.databaseURL, "not a valid postgres:// URL") }
                }
                // An app is waiting: statements fail fast rather than hold the pool.
                let limits = PostgresSessionLimits.fromEnvironment(&reader, defaults: .requestPath)
                database?.limits = limits
                let providers = ProvidersConfiguration.fromEnvironment(&reader, uses: .api)
                let mode = DeploymentMode.fromEnvironment(&reader, credentials: providers?.credentialModes ?? [])
                let ownershipKey = reader.required.secret(.ownershipProofKey)
                let http = HTTPServerConfiguration.fromEnvironment(&reader, defaultPort: 8082)
                var configuration = CheckoutConfiguration.fromEnvironment(&reader)
                configuration.mode = mode
                if configuration.providerTimeout > http.handlerTimeout - CheckoutConfiguration.answerMargin {
                    reader.report(.checkoutProviderTimeout, "must be at least 5s below HTTP_HANDLER_TIMEOUT (\(http.handlerTimeout))")
                }
                let appStore = AppStoreConfiguration.fromEnvironment(&reader, testMode: !mode.isLive)
                var linkOutPolicy: LinkOutPolicySource? = LinkOutPolicySource(logger: logger)
                if let path = appStore.policyFile {
                    do {
                        linkOutPolicy = try LinkOutPolicySource(path: path, logger: logger)
                    } catch {
                        linkOutPolicy = nil
                        reader.report(.appStorePolicyFile, String(describing: error))
                    }
                }
                return (
                    http: http,
                    configuration: configuration,
                    appStore: appStore, linkOutPolicy: linkOutPolicy,
                    webFirst: WebFirstConfiguration.fromEnvironment(&reader, redirectURL: configuration.redirectURL),
                    stream: EntitlementStreamSettings.fromEnvironment(&reader, connectionLimit: http.maxConnections),
                    changeVerifier: EntitlementChangeVerifier.fromEnvironment(&reader),
                    // Refuses AUTH_DISABLED=true in live mode.
                    auth: AuthConfiguration.fromEnvironment(&reader, mode: mode),
                    ownership: OwnershipProof.configured(key: ownershipKey, reader: &reader),
                    messaging: MessagingSettings.fromEnvironment(&reader, service: "checkout", logger: logger),
                    database: database,
                    maxConnections: reader.int(.databaseMaxConnections, default: 10, in: 1...200),
                    providers: providers, mode: mode,
                    entitlements: EntitlementResolver.fromEnvironment(&reader, testDeployment: !mode.isLive),
                    budgets: ProviderBudgetSettings.fromEnvironment(&reader, live: providers?.showsLiveKeys ?? false)
                )
            },
            start: { settings, logger, metrics in
                // These are nil only when the reader reported why (and the launcher exited).
                guard let database = settings.database, let providers = settings.providers, let changeVerifier = settings.changeVerifier,
                    let linkOutPolicy = settings.linkOutPolicy
                else {
                    throw ConfigurationError(problems: [ConfigurationProblem(variable: "DATABASE_URL", message: "configuration incomplete")])
                }
                let pool = PostgresPool(configuration: database, options: PostgresPoolConfiguration(maximumConnections: settings.maxConnections))
                try await CheckoutSchema.migrate(pool: pool)
                try await settings.messaging.ensureTopics(Topics.all)
                let producer = try KafkaProducer(configuration: settings.messaging.producerConfiguration(declaring: Topics.all), logger: logger)
                let admin = try KafkaAdmin(configuration: settings.messaging.client)
                // The live stream: this replica's own group on the entitlement changes.
                let changes = EntitlementChangeHub(settings: settings.stream)
                let listener = EntitlementChangeListener(
                    consumer: try KafkaConsumer(
                        topics: [Topics.entitlements],
                        configuration: EntitlementChangeTopic.consumerConfiguration(
                            client: settings.messaging.client, replica: ProcessInfo.processInfo.hostName)),
                    hub: changes, verifier: changeVerifier, logger: logger, metrics: metrics)
                let application = buildCheckoutApplication(
                    configuration: settings.configuration, webFirst: settings.webFirst, appStore: settings.appStore, linkOutPolicy: linkOutPolicy,
                    auth: settings.auth, ownership: settings.ownership,
                    providers: ProviderRegistry(
                        configuration: providers, httpClient: HTTPClient(),
                        budget: { provider in
                            // Interactive: an app user waits on these calls, so they may use the
                            // whole limit, the reserve the reconciler leaves included.
                            SharedProviderBudget(
                                provider: provider, requestClass: .interactive, shares: settings.budgets.shares(provider),
                                store: PostgresProviderLedgerStore(pool: pool),
                                fallback: RequestBudget(requestsPerMinute: settings.budgets.shares(provider).requestsPerMinute), logger: logger)
                        }),
                    pool: pool, publisher: KafkaRecordPublisher(producer: producer),
                    // Reachable is not enough: after a broker restart a producer can reach it and still
                    // have every record refused, so readiness also asks the producer's own deliveries.
                    brokerCheck: { [window = settings.messaging.publishReadinessWindow] in
                        _ = try await admin.partitionCount(topic: Topics.checkouts, timeout: .seconds(2))
                        try producer.checkPublishing(window: window)
                    },
                    http: settings.http, entitlements: settings.entitlements, logger: logger, metrics: metrics,
                    changes: changes,
                    changeFeedCheck: {
                        guard listener.isAssigned else { throw StreamNotAssigned() }
                    })

                logger.info(
                    "checkout starting",
                    metadata: [
                        "http.port": String(settings.http.port),
                        "checkout.providers": application.catalog.sources.map(\.provider.rawValue).joined(separator: ","),
                        "auth": settings.auth.summary,
                        "mode": settings.mode.rawValue,
                        "entitlements": settings.entitlements.configuration == nil ? "one per product" : "ENTITLEMENTS_FILE",
                        "postgres.limits": database.limits.description,
                        "entitlements.verify_key_ids": changeVerifier.keyIDs.joined(separator: ","),
                    ])
                // The producer drains last: services stop in reverse order, HTTP first.
                return ServiceLaunch(
                    services: [producer, listener.consumer, listener] + application.services,
                    afterStop: { await pool.close() })
            })
    }
}

/// The readiness failure before the live stream's consumer owns its partitions.
struct StreamNotAssigned: Error, CustomStringConvertible {
    var description: String { "entitlement stream consumer not assigned yet" }
}
