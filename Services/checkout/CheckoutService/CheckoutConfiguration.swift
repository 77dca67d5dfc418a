import ServiceSettings
import Catalog
import Foundation
import ServiceRuntime

/// The checkout service's own settings (HTTP, broker, database, providers
/// and auth are read by their own modules).
public struct CheckoutConfiguration: Sendable {
    /// How often the cached provider catalogs are refreshed (`CHECKOUT_CATALOG_REFRESH`, default 300 s).
    public var catalogRefreshInterval: Duration
    /// First retry delay after a failed catalog load; doubles up to the refresh interval.
    public var catalogRetryDelay: Duration
    /// Where the provider sends the buyer after paying (`CHECKOUT_REDIRECT_URL`, optional).
    public var redirectURL: String?
    /// The app's own link (deep link such as `myapp://purchase-complete`, or
    /// a universal link) that the `/checkout/complete` page offers to return
    /// to the app with (`CHECKOUT_APP_RETURN_URL`, optional: without it the
    /// page only says to go back to the app).
    public var appReturnURL: String?
    /// How long a hosted checkout stays valid (`CHECKOUT_EXPIRY`, default 1 h).
    public var checkoutExpiry: Duration
    /// Largest JSON body accepted by the app-facing POST routes (`CHECKOUT_MAX_BODY_BYTES`, default 16 KiB).
    public var maxBodyBytes: Int
    /// How long an idempotency key is remembered (`CHECKOUT_IDEMPOTENCY_TTL`,
    /// default 24 h, 1 h to 30 days); also how long its record is kept.
    public var idempotencyTTL: Duration
    /// How long a request waits for a concurrent request with the same key
    /// to finish before answering 409 (`CHECKOUT_IDEMPOTENCY_WAIT`, default 10 s, at most 30 s).
    public var idempotencyWait: Duration
    /// How long one provider call (create a checkout, cancel, resume, portal
    /// link), retries included, may take before the app is answered 503
    /// (`CHECKOUT_PROVIDER_TIMEOUT`, default 15 s; at least 5 s below
    /// `HTTP_HANDLER_TIMEOUT`, so the app hears what happened rather than a 504).
    public var providerTimeout: Duration = .seconds(15)
    /// What a request keeps after its provider call for the database and
    /// the broker, within the handler's deadline.
    public static let answerMargin: Duration = .seconds(5)
    /// Per-user quotas of the routes that reach the provider
    /// (`CHECKOUT_QUOTA_*`; see ``UserQuotaPolicy`` for the defaults; 0 turns a limit off).
    public var quotas: UserQuotaPolicy
    /// How long the checkout's tables keep what they no longer need
    /// (`CHECKOUT_RETENTION_*`, `RETENTION_*`), pruned by its ``RetentionJob``.
    public var retention = CheckoutRetention()
    /// The deployment's mode (`STOREFRONT_MODE`, read by ``DeploymentMode``,
    /// not here): the server routes take only API keys made for it. Default
    /// `test`, as the tests' keys are.
    public var mode: DeploymentMode = .test

    public init(
        catalogRefreshInterval: Duration = .seconds(300), catalogRetryDelay: Duration = .seconds(1), redirectURL: String? = nil,
        checkoutExpiry: Duration = .seconds(3600), maxBodyBytes: Int = 16 * 1024, idempotencyTTL: Duration = .seconds(86_400),
        idempotencyWait: Duration = .seconds(10), quotas: UserQuotaPolicy = UserQuotaPolicy()
    ) {
        self.catalogRefreshInterval = catalogRefreshInterval
        self.catalogRetryDelay = catalogRetryDelay
        self.redirectURL = redirectURL
        self.checkoutExpiry = checkoutExpiry
        self.maxBodyBytes = maxBodyBytes
        self.idempotencyTTL = idempotencyTTL
        self.idempotencyWait = idempotencyWait
        self.quotas = quotas
    }

    /// The catalog refresher's schedule: ``catalogRefreshInterval`` after a
    /// full success, otherwise doubling from ``catalogRetryDelay`` up to the interval.
    public var catalogRefreshSchedule: CatalogRefreshSchedule {
        CatalogRefreshSchedule(interval: catalogRefreshInterval, initialRetryDelay: catalogRetryDelay)
    }

    /// Reads the variables above; bad values are reported to `reader`.
    public static func fromEnvironment(_ reader: inout ConfigReader) -> CheckoutConfiguration {
        var configuration = CheckoutConfiguration()
        let refresh = reader.duration(.checkoutCatalogRefresh, default: configuration.catalogRefreshInterval)
        if refresh < .seconds(1) {
            reader.report(.checkoutCatalogRefresh, "must be at least 1s")
        } else {
            configuration.catalogRefreshInterval = refresh
        }
        if let redirect = reader.string(.checkoutRedirectURL) {
            if let url = URL(string: redirect), let scheme = url.scheme?.lowercased(), ["https", "http"].contains(scheme) || url.host == nil,
                redirect.utf8.count <= 2048
            {
                configuration.redirectURL = redirect
            } else {
                reader.report(.checkoutRedirectURL, "must be an absolute URL (https://… or an app deep link) of at most 2048 bytes")
            }
        }
        if let link = reader.string(.checkoutAppReturnURL) {
            // It becomes a link on a page: no script or data URLs, no spaces.
            if let url = URL(string: link), let scheme = url.scheme?.lowercased(),
                !["javascript", "data", "vbscript", "file", "blob"].contains(scheme),
                link.utf8.count <= 2048, link.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
            {
                configuration.appReturnURL = link
            } else {
                reader.report(
                    .checkoutAppReturnURL,
                    "must be an absolute URL (the app's deep link such as myapp://purchase-complete, or https://…) of at most 2048 bytes")
            }
        }
        let expiry = reader.duration(.checkoutExpiry, default: configuration.checkoutExpiry)
        if expiry < .seconds(60) || expiry > .seconds(7 * 86_400) {
            reader.report(.checkoutExpiry, "must be between 1m and 7 days")
        } else {
            configuration.checkoutExpiry = expiry
        }
        configuration.maxBodyBytes = reader.int(.checkoutMaxBodyBytes, default: configuration.maxBodyBytes, in: 256...(1 << 20))
        let wait = reader.duration(.checkoutIdempotencyWait, default: configuration.idempotencyWait)
        if wait > .seconds(30) {
            reader.report(.checkoutIdempotencyWait, "must be at most 30s (a waiting request holds its connection to the app)")
        } else {
            configuration.idempotencyWait = wait
        }
        let ttl = reader.duration(.checkoutIdempotencyTTL, default: configuration.idempotencyTTL)
        if ttl < .seconds(3600) || ttl > .seconds(30 * 86_400) {
            reader.report(.checkoutIdempotencyTTL, "must be between 1h and 30d")
        } else {
            configuration.idempotencyTTL = ttl
        }
        configuration.retention = CheckoutRetention.fromEnvironment(&reader)
        let providerTimeout = reader.duration(.checkoutProviderTimeout, default: configuration.providerTimeout)
        if providerTimeout < .seconds(1) || providerTimeout > .seconds(120) {
            reader.report(.checkoutProviderTimeout, "must be between 1s and 120s")
        } else {
            configuration.providerTimeout = providerTimeout
        }
        var quotas = configuration.quotas
        quotas.createPerMinute = reader.int(.checkoutQuotaCreatePerMinute, default: quotas.createPerMinute, in: 0...100_000)
        quotas.createPerHour = reader.int(.checkoutQuotaCreatePerHour, default: quotas.createPerHour, in: 0...1_000_000)
        quotas.portalPerMinute = reader.int(.checkoutQuotaPortalPerMinute, default: quotas.portalPerMinute, in: 0...100_000)
        quotas.cancelResumePerMinute = reader.int(
            .checkoutQuotaCancelResumePerMinute, default: quotas.cancelResumePerMinute, in: 0...100_000)
        quotas.apiKeyPerMinute = reader.int(.checkoutQuotaAPIKeyPerMinute, default: quotas.apiKeyPerMinute, in: 0...1_000_000)
        configuration.quotas = quotas
        return configuration
    }
}
