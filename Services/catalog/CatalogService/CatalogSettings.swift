import Timing
import ServiceSettings

// The catalog's own settings (CatalogConfiguration.fromEnvironment).

extension Setting {
    public static let catalogRefreshInterval = Setting(
        "CATALOG_REFRESH_INTERVAL", default: "5m", "how often the product list is fetched again from each provider")
    public static let catalogRetryInitialDelay = Setting(
        "CATALOG_RETRY_INITIAL_DELAY", default: "1s", "first wait after a failed fetch (doubling up to the maximum)")
    public static let catalogRetryMaxDelay = Setting(
        "CATALOG_RETRY_MAX_DELAY", default: "60s", "longest wait between failed fetches")
}

extension SettingGroup {
    public static let catalog = SettingGroup(
        "Catalog", [.catalogRefreshInterval, .catalogRetryInitialDelay, .catalogRetryMaxDelay])
}
