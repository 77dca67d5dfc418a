import Timing
import ServiceSettings

// Settings only the operator CLI's commands read.

extension Setting {
    public static let devTokenSecret = Setting(
        "AUTH_JWT_SECRET", required: true, secret: true, "HS256 secret the minted token is signed with (the checkout's)")
    public static let devTokenIssuer = Setting(
        "AUTH_JWT_ISSUER", default: "the local stack's", "iss of the minted token (first of the list)")
    public static let devTokenAudience = Setting(
        "AUTH_JWT_AUDIENCE", default: "the local stack's", "aud of the minted token (first of the list)")
    public static let devTokenMode = Setting(
        "STOREFRONT_MODE", default: "test", "live refuses to mint: a live deployment's app tokens come from its identity provider")
    public static let migrateKafkaBrokers = Setting(
        "KAFKA_BROKERS", "when set, migrate also creates the topics on these brokers")
    public static let statusMode = Setting(
        "STOREFRONT_MODE", default: "test", "live hides test-only entitlement shortcuts, as the checkout does")
    public static let apiKeysMode = Setting(
        "STOREFRONT_MODE", default: "test", "live makes sfk_live_ keys, anything else sfk_test_ ones")
    public static let endpointsMode = Setting(
        "STOREFRONT_MODE", default: "test", "live makes endpoints add take https:// URLs only")
    public static let reconcileDatabaseURL = Setting(
        "DATABASE_URL", "when set, the sweep also prints drift against this database")
    public static let refundAPIKey = Setting(
        "STOREFRONT_API_KEY", required: true, secret: true, "an API key with the purchases:refund scope")
}

extension SettingGroup {
    public static let devToken = SettingGroup(
        "storefront dev-token", [.devTokenSecret, .devTokenIssuer, .devTokenAudience, .devTokenMode])
    public static let migrateBroker = SettingGroup(
        "storefront migrate: topics", [.migrateKafkaBrokers])
    public static let statusMode = SettingGroup(
        "storefront status", [.statusMode])
    public static let apiKeysMode = SettingGroup(
        "storefront api-keys", [.apiKeysMode])
    public static let endpointsMode = SettingGroup(
        "storefront endpoints", [.endpointsMode])
    public static let reconcileDatabase = SettingGroup(
        "storefront reconcile", [.reconcileDatabaseURL])
    public static let refundAPI = SettingGroup(
        "storefront refund", [.serverAPIURL, .refundAPIKey])
}

// `storefront grant`, `revoke` and `refund` act through the server API, as
// the app's own backend would: the API key's scope decides, and the key's id
// is what the event log records as who acted.
extension Setting {
    public static let serverAPIURL = Setting(
        "STOREFRONT_API_URL", default: "http://127.0.0.1:8080", "the gateway (or checkout) the server API is reached at")
    public static let serverAPIKey = Setting(
        "STOREFRONT_API_KEY", required: true, secret: true, "an API key with entitlements:write (storefront api-keys create)")
}

extension SettingGroup {
    public static let serverAPI = SettingGroup("storefront grant and revoke", [.serverAPIURL, .serverAPIKey])
}
