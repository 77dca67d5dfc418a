import Catalog
import Foundation
import HTTPServer
import BillingModel
import Postgres
import ProjectionStore
import Entitlements
import ProviderBudget
import Providers
import Retention
import ServiceRuntime
import Telemetry
import TokenVerification
import Webhooks

/// The checkout service, assembled: catalog cache, routes, health checks and server.
///
/// The executable and the tests build it the same way through
/// ``buildCheckoutApplication(configuration:auth:jwksFetcher:ownership:providers:catalogSources:pool:publisher:brokerCheck:http:entitlements:logger:metrics:quotaStore:apiKeys:changes:changeFeedCheck:now:)``;
/// tests may call ``respond(to:logger:)`` without a socket.
public struct CheckoutApplication: ServiceApplication {
    /// The cached provider catalogs, to check that a requested variant exists
    /// and know a Paystack plan's amount without calling the provider per
    /// request (tests load it with `refresh()`).
    public let catalog: CatalogCache
    /// Loads and refreshes ``catalog`` in the background.
    public let refresher: CatalogRefresher
    /// The API, the completion page and the operational routes; readiness
    /// checks `database`, `broker` (when given: the executable's checks the
    /// broker's metadata and the producer's own deliveries), `catalog`.
    public let shell: ApplicationShell
    /// Prunes expired idempotency records, ended quota and provider-ledger
    /// windows and expired redemption links (``CheckoutRetention``).
    public let retention: RetentionJob
    /// Loads and refreshes the JWKS keys (`AUTH_JWT_JWKS_URL`); nil without JWKS URLs.
    public let tokenKeys: JWKSRefresher?
    /// The live stream's changes and waiting polls; an ``EntitlementChangeListener``
    /// (the executable's, or a test's) feeds it.
    public let changes: EntitlementChangeHub
    /// The App Store link-out policy in force, reread when its file changes.
    public let linkOutPolicy: LinkOutPolicySource

    /// The services to run, in start order. HTTP starts at once; until the
    /// catalog is loaded, create-checkout answers 503 and `/readyz` is not
    /// ready; until every JWKS was loaded once, `/readyz` is not ready either
    /// and tokens that need those keys are answered 503.
    public var services: [any Service] {
        [refresher, retention, linkOutPolicy] + (tokenKeys.map { [$0] } ?? []) + [shell.server]
    }
}

/// Builds the checkout service.
///
/// - Parameters:
///   - configuration: catalog refresh, checkout expiry, redirect URL, limits.
///   - webFirst: anonymous checkouts, the paywall, redemption links, app association files.
///   - appStore: which app's external purchase tokens are accepted (docs/app-store.md).
///   - linkOutPolicy: where apps may link out (`GET /api/app-config`); the
///     default says nowhere.
///   - auth: how tokens are verified (or that they are not).
///   - jwksFetcher: how the JWKS URLs of `auth` are fetched; nil for HTTP with
///     the default JWKS policy (tests pass a local server's client or a fake).
///   - ownership: the proofs put into each checkout's custom data (`OWNERSHIP_PROOF_KEY`;
///     the projector must check them with the same key).
///   - providers: the enabled payment providers.
///   - catalogSources: where ``CheckoutApplication/catalog`` comes from; nil
///     for one `ProviderCatalogSource` per client in `providers` (tests pass fakes).
///   - pool: PostgreSQL with the projection tables and ``CheckoutSchema`` applied.
///   - publisher: where checkout and command records go.
///   - brokerCheck: the readiness check for the broker, if any.
///   - http: address, port and limits of the server.
///   - entitlements: how purchases become entitlements (the default, for
///     tests: each product its own entitlement, a test-mode deployment).
///   - logger: the root logger. With auth disabled a warning is logged here.
///   - metrics: registry for `checkout_*`, HTTP and anything the caller adds.
///   - quotaStore: where per-user quota counts live; nil for ``CheckoutSchema``'s
///     table in `pool` (tests pass a fake).
///   - apiKeys: where the server routes' API keys live; nil for ``CheckoutSchema``'s
///     table in `pool` (tests pass a fake).
///   - changes: what the live stream (`GET /api/entitlements/stream`) answers from.
///   - changeFeedCheck: the readiness check of the listener that feeds `changes`, if any.
///   - now: the clock.
public func buildCheckoutApplication(
    configuration: CheckoutConfiguration = CheckoutConfiguration(),
    webFirst: WebFirstConfiguration = WebFirstConfiguration(),
    appStore: AppStoreConfiguration = AppStoreConfiguration(),
    linkOutPolicy: LinkOutPolicySource = LinkOutPolicySource(),
    auth: AuthConfiguration,
    jwksFetcher: (any JWKSFetching)? = nil,
    ownership: OwnershipProof,
    providers: ProviderRegistry,
    catalogSources: [any CatalogSource]? = nil,
    pool: PostgresPool,
    publisher: any RecordPublisher,
    brokerCheck: (@Sendable () async throws -> Void)? = nil,
    http: HTTPServerConfiguration = HTTPServerConfiguration(),
    entitlements: EntitlementResolver = EntitlementResolver(policy: AccessPolicy(testDeployment: true)),
    logger: Logger,
    metrics: MetricsRegistry = MetricsRegistry(),
    quotaStore: (any UserQuotaStore)? = nil,
    apiKeys: (any APIKeyStore)? = nil,
    changes: EntitlementChangeHub = EntitlementChangeHub(),
    changeFeedCheck: (@Sendable () async throws -> Void)? = nil,
    now: @escaping @Sendable () -> Date = { Date() }
) -> CheckoutApplication {
    for warning in auth.startupWarnings { logger.warning(warning) }
    let checkoutMetrics = CheckoutMetrics(registry: metrics)
    let catalog = CatalogCache(
        sources: catalogSources ?? providers.catalogSources, logger: logger,
        // Checkout never limited what it keeps per provider.
        maximumItemsPerSource: nil,
        didRefresh: { outcome, contents in
            for provider in contents.providers {
                checkoutMetrics.catalogItems(provider).set(Double(contents.variantCount(provider)))
            }
            checkoutMetrics.catalogRefreshFailures.increment(by: outcome.failures.count)
        })
    let idempotency = IdempotencyStore(pool: pool, ttl: configuration.idempotencyTTL, wait: configuration.idempotencyWait)
    let quotas = quotaStore ?? PostgresUserQuotaStore(pool: pool)
    let quota = UserQuotaGate(policy: configuration.quotas, store: quotas, metrics: checkoutMetrics, now: now)
    // Each entitlement's product_id is the catalog id of what was bought, as the catalog lists it.
    var entitlements = entitlements
    entitlements.productIDs = PurchasedProductIDs(catalog: catalog)
    let reader = SubscriptionStatusReader(pool: pool, resolver: entitlements)

    let tokenVerifier = auth.tokenSettings.map {
        TokenVerifier(settings: $0, fetcher: jwksFetcher, logger: logger, metrics: JWKSMetrics(registry: metrics))
    }

    let health = HealthChecks()
    health.register("database") { _ = try await pool.query("SELECT 1") }
    if let tokenVerifier, !tokenVerifier.keySets.isEmpty {
        health.register("jwks") {
            guard tokenVerifier.isReady else { throw KeySetsNotLoaded() }
        }
    }
    if let brokerCheck { health.register("broker", brokerCheck) }
    if let changeFeedCheck { health.register("entitlement-stream", changeFeedCheck) }
    health.register("catalog") {
        guard catalog.allSourcesLoaded else { throw CatalogNotLoaded() }
    }

    // What an app waits on is bounded below the handler's deadline; the
    // catalog's background refresh is not.
    let interactive = providers.bounded(by: configuration.providerTimeout)
    let anonymousUsers = AnonymousUsers(ownership: ownership, now: now)
    let authenticator = Authenticator(configuration: auth, verifier: tokenVerifier, anonymousUsers: anonymousUsers)
    let creator = CheckoutCreator(
        catalog: catalog, registry: interactive, idempotency: idempotency, quota: quota, publisher: publisher,
        configuration: configuration, ownership: ownership,
        linkOut: LinkOutCheck(policy: linkOutPolicy, configuration: appStore, tokens: PostgresExternalPurchaseTokenStore(pool: pool)),
        metrics: checkoutMetrics, now: now)
    let claimer = PurchaseClaimer(publisher: publisher, now: now)
    let commander = SubscriptionCommander(reader: reader, registry: interactive, publisher: publisher, metrics: checkoutMetrics, now: now)
    let routes = CheckoutRoutes(
        authenticator: authenticator, creator: creator, commander: commander,
        planChanger: PlanChanger(commander: commander, idempotency: idempotency),
        planPreviewer: PlanChangePreviewer(commander: commander, catalog: catalog),
        reader: reader, claimer: claimer,
        refresher: SubscriptionRefresher(publisher: publisher, limiter: CommandLimiter(), metrics: checkoutMetrics),
        quota: quota, maxBodyBytes: configuration.maxBodyBytes, webFirst: webFirst, now: now)
    let reads = WebFirstReads(pool: pool)
    let redemptions = RedemptionTokens(ownership: ownership).map {
        Redemptions(
            pool: pool, reads: reads, tokens: $0, publisher: publisher, ttl: webFirst.redemptionTTL, publicURL: webFirst.publicURL, now: now)
    }
    let webFirstRoutes = WebFirstRoutes(
        authenticator: authenticator, redemptions: redemptions, reads: reads, anonymousUsers: anonymousUsers,
        merges: UserMerges(pool: pool, publisher: publisher, now: now), reader: reader, claimer: claimer, quota: quota,
        configuration: webFirst, maxBodyBytes: configuration.maxBodyBytes, now: now)
    let serverAuthenticator = ServerAuthenticator(store: apiKeys ?? PostgresAPIKeyStore(pool: pool), mode: configuration.mode, now: now)
    let serverRoutes = ServerRoutes(
        authenticator: serverAuthenticator, reader: reader, quota: quota,
        refunds: RefundCommander(
            lookup: RefundablePaymentReader(pool: pool), registry: interactive, idempotency: idempotency, publisher: publisher,
            metrics: checkoutMetrics, now: now),
        maxBodyBytes: configuration.maxBodyBytes, now: now)
    let grantRoutes = GrantRoutes(
        authenticator: serverAuthenticator, store: PostgresGrantStore(pool: pool), publisher: publisher, resolver: reader.resolver,
        quota: quota, maxBodyBytes: configuration.maxBodyBytes, now: now)
    let stream = EntitlementStreamRoute(authenticator: authenticator, hub: changes)
    let completionPage = CheckoutCompletionPage(
        appReturnURL: configuration.appReturnURL,
        redemption: redemptions.map { WebFirstCompletion(reads: reads, redemptions: $0, appReturnURL: configuration.appReturnURL) })
    let paywall = PaywallPage(catalog: catalog, creator: creator, configuration: webFirst, maxBodyBytes: configuration.maxBodyBytes)
    return CheckoutApplication(
        catalog: catalog,
        refresher: CatalogRefresher(cache: catalog, schedule: configuration.catalogRefreshSchedule, logger: logger),
        shell: ApplicationShell(http: CheckoutApplication.bounded(http, by: configuration), health: health, metrics: metrics, logger: logger) {
            routes.mount(on: $0)
            serverRoutes.mount(on: $0)
            grantRoutes.mount(on: $0)
            stream.mount(on: $0)
            completionPage.mount(on: DatabaseUnavailable(base: $0))
            webFirstRoutes.mount(on: $0)
            RedeemLandingPage(appStoreURL: webFirst.appStoreURL).mount(on: $0)
            paywall.mount(on: $0)
            AppConfigRoute(policy: linkOutPolicy).mount(on: $0)
        },
        retention: RetentionJob(
            pool: pool, rules: configuration.retention.rules(idempotencyTTL: configuration.idempotencyTTL),
            schedule: configuration.retention.schedule, registry: metrics, logger: logger, now: now),
        tokenKeys: tokenVerifier?.refresher, changes: changes, linkOutPolicy: linkOutPolicy)
}

extension CheckoutApplication {
    /// Every app-facing body is small: the server refuses larger ones (413)
    /// before reading them, so nothing large is read before the token is checked.
    static func bounded(_ http: HTTPServerConfiguration, by configuration: CheckoutConfiguration) -> HTTPServerConfiguration {
        var http = http
        http.maxBodyBytes = min(http.maxBodyBytes, configuration.maxBodyBytes)
        return http
    }
}

/// The readiness failure before every JWKS was loaded once.
struct KeySetsNotLoaded: Error, CustomStringConvertible {
    var description: String { "JWKS keys not loaded yet" }
}

/// The readiness failure before every provider's catalog was loaded once.
struct CatalogNotLoaded: Error, CustomStringConvertible {
    var description: String { "provider catalogs not loaded yet" }
}
