import Timing
import ServiceSettings

// The checkout's own settings (CheckoutConfiguration, DeploymentMode and its main).

extension Setting {
    public static let storefrontMode = Setting(
        "STOREFRONT_MODE", default: "derived from the enabled providers' keys that show their mode (sk_live_: live); required when none does",
        "live or test: live refuses AUTH_DISABLED and test-only entitlement shortcuts")
    public static let databaseMaxConnections = Setting(
        "DATABASE_MAX_CONNECTIONS", default: "10", "PostgreSQL connections in the checkout's pool")
    public static let checkoutRedirectURL = Setting(
        "CHECKOUT_REDIRECT_URL", "where the provider sends the buyer after paying (https:// or an app deep link); unset: the provider's own page")
    public static let checkoutAppReturnURL = Setting(
        "CHECKOUT_APP_RETURN_URL", "the app's own link the completion page offers to return to")
    public static let checkoutExpiry = Setting(
        "CHECKOUT_EXPIRY", default: "1h", "how long a hosted checkout URL stays valid (1m to 7 days)")
    public static let checkoutCatalogRefresh = Setting(
        "CHECKOUT_CATALOG_REFRESH", default: "5m", "how often the checkout refreshes its copy of the catalog (at least 1s)")
    public static let checkoutMaxBodyBytes = Setting(
        "CHECKOUT_MAX_BODY_BYTES", default: "16384", "largest request body the checkout routes accept")
    public static let checkoutIdempotencyWait = Setting(
        "CHECKOUT_IDEMPOTENCY_WAIT", default: "10s", "how long a repeated request waits for the first one's answer (at most 30s)")
    public static let checkoutIdempotencyTTL = Setting(
        "CHECKOUT_IDEMPOTENCY_TTL", default: "24h",
        "how long an Idempotency-Key replays its first answer (1h to 30d); the record is deleted once it expired")
    public static let checkoutProviderTimeout = Setting(
        "CHECKOUT_PROVIDER_TIMEOUT", default: "15s", "longest a provider call may take (at least 5s below HTTP_HANDLER_TIMEOUT)")
    public static let checkoutQuotaCreatePerMinute = Setting(
        "CHECKOUT_QUOTA_CREATE_PER_MINUTE", default: "10", "checkouts one app user may create per minute; 0 = no limit")
    public static let checkoutQuotaCreatePerHour = Setting(
        "CHECKOUT_QUOTA_CREATE_PER_HOUR", default: "60", "checkouts one app user may create per hour; 0 = no limit")
    public static let checkoutQuotaPortalPerMinute = Setting(
        "CHECKOUT_QUOTA_PORTAL_PER_MINUTE", default: "20", "customer-portal links one app user may ask for per minute; 0 = no limit")
    public static let checkoutQuotaCancelResumePerMinute = Setting(
        "CHECKOUT_QUOTA_CANCEL_RESUME_PER_MINUTE", default: "10", "cancels and resumes one app user may ask for per minute; 0 = no limit")
    public static let checkoutQuotaAPIKeyPerMinute = Setting(
        "CHECKOUT_QUOTA_API_KEY_PER_MINUTE", default: "1200", "server-API requests one API key may make per minute; 0 = no limit")
    public static let checkoutStreamWait = Setting(
        "CHECKOUT_STREAM_WAIT", default: "25s", "how long one poll of the live entitlement stream waits (1s to 25s)")
    public static let checkoutStreamMaxWaiting = Setting(
        "CHECKOUT_STREAM_MAX_WAITING", default: "768",
        "stream polls waiting at once per replica (at most 3/4 of HTTP_MAX_CONNECTIONS); more get 503 stream_busy")
    public static let checkoutStreamMaxPerUser = Setting(
        "CHECKOUT_STREAM_MAX_PER_USER", default: "4", "stream polls one user may have waiting per replica; a further one ends their oldest")
    public static let checkoutStreamReplayWindow = Setting(
        "CHECKOUT_STREAM_REPLAY_WINDOW", default: "5m", "how long the stream keeps changes for a poll's after= cursor (1s to 1h)")
    public static let checkoutStreamReplayBytes = Setting(
        "CHECKOUT_STREAM_REPLAY_BYTES", default: "32 MiB", "memory the stream's kept changes may take per replica; the oldest go first")
    public static let authJWTSecret = Setting(
        "AUTH_JWT_SECRET", secret: true, "HS256 shared secret of app tokens (at least 32 bytes)")
    public static let authJWTPublicKeyFile = Setting(
        "AUTH_JWT_PUBLIC_KEY_FILE", "PEM file of an RSA public key for RS256 app tokens")
    public static let authJWTJWKSURL = Setting(
        "AUTH_JWT_JWKS_URL", "comma-separated https JWKS URLs of the identity provider (RS256/ES256 keys by kid)")
    public static let authJWTIssuer = Setting(
        "AUTH_JWT_ISSUER", "comma-separated accepted iss values (this or AUTH_JWT_AUDIENCE is required with keys)")
    public static let authJWTUserIDPrefixes = Setting(
        "AUTH_JWT_USER_ID_PREFIXES",
        "ISSUER=PREFIX items, comma-separated: app user id PREFIX:sub per issuer (required with several AUTH_JWT_ISSUER; ISSUER= keeps plain sub)")
    public static let authJWTAudience = Setting(
        "AUTH_JWT_AUDIENCE", "comma-separated accepted aud values (required with AUTH_JWT_JWKS_URL)")
    public static let authJWTAllowAnyIssuerAndAudience = Setting(
        "AUTH_JWT_ALLOW_ANY_ISSUER_AND_AUDIENCE", default: "false", "true: accept tokens without checking iss and aud (the explicit opt-out)")
    public static let authJWTLeeway = Setting(
        "AUTH_JWT_LEEWAY", default: "60s", "clock-skew allowance on exp, nbf and iat (at most 5m)")
    public static let authJWTMaxAge = Setting(
        "AUTH_JWT_MAX_AGE", "oldest token accepted, by iat; unset: no maximum")
    public static let authEmailsAreVerified = Setting(
        "AUTH_EMAILS_ARE_VERIFIED", default: "false", "true: treat every token's email as verified (for providers that only issue verified emails)")
    public static let authDisabled = Setting(
        "AUTH_DISABLED", default: "false", "true: no app tokens (local experiments only; refused in live mode)")
}

extension SettingGroup {
    public static let checkout = SettingGroup(
        "Checkout",
        [
            .storefrontMode, .databaseMaxConnections, .checkoutRedirectURL, .checkoutAppReturnURL, .checkoutExpiry, .checkoutCatalogRefresh,
            .checkoutMaxBodyBytes, .checkoutIdempotencyWait, .checkoutIdempotencyTTL, .checkoutProviderTimeout, .checkoutQuotaCreatePerMinute,
            .checkoutQuotaCreatePerHour,
            .checkoutQuotaPortalPerMinute, .checkoutQuotaCancelResumePerMinute, .checkoutQuotaAPIKeyPerMinute,
        ])
    public static let entitlementStream = SettingGroup(
        "Live entitlement stream (checkout)",
        [.checkoutStreamWait, .checkoutStreamMaxWaiting, .checkoutStreamMaxPerUser, .checkoutStreamReplayWindow, .checkoutStreamReplayBytes])
    public static let appTokens = SettingGroup(
        "App tokens",
        [
            .authJWTSecret, .authJWTPublicKeyFile, .authJWTJWKSURL, .authJWTIssuer, .authJWTUserIDPrefixes, .authJWTAudience,
            .authJWTAllowAnyIssuerAndAudience,
            .authJWTLeeway, .authJWTMaxAge, .authEmailsAreVerified, .authDisabled,
        ])
}
