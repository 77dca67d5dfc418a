import Timing
import ServiceSettings
import BillingModel
import ProviderConfiguration

// The provider API limits shared by the checkout and the reconciler through the ledger (ProviderBudgetSettings.fromEnvironment).

extension Setting {
    /// `PROVIDER_BUDGET_<STEM>_PER_MINUTE`: one per registered provider, its
    /// default the provider's documented limit (``BillingModel/ProviderTraits/requestsPerMinute``).
    public static func providerBudgetPerMinute(_ provider: Provider) -> Setting {
        let limits = provider.traits.requestsPerMinute
        let shown = limits.test == limits.live ? "\(limits.test)" : "\(limits.test) with a test key, \(limits.live) with a live key"
        return Setting(
            "PROVIDER_BUDGET_\(provider.configurationRules.settingsStem)_PER_MINUTE", default: shown,
            "\(provider.definition.displayName) API requests per minute shared by every service and replica")
    }

    public static let providerBudgetCheckoutReservePercent = Setting(
        "PROVIDER_BUDGET_CHECKOUT_RESERVE_PERCENT", default: "30", "share of the limit only checkouts may use")
    public static let providerBudgetSweepPercent = Setting(
        "PROVIDER_BUDGET_SWEEP_PERCENT", default: "40", "share of the limit the reconciler's sweeps may use (at most 100 minus the reserve)")
    public static let providerBudgetBatch = Setting(
        "PROVIDER_BUDGET_BATCH", default: "5",
        "requests a reconciler replica counts in the shared ledger at once (one transaction per batch, capped at a quarter of a window's share; the checkout always takes one)"
    )
}

extension SettingGroup {
    public static let providerBudget = SettingGroup(
        "Provider request budgets",
        Provider.allCases.map(Setting.providerBudgetPerMinute) + [
            .providerBudgetCheckoutReservePercent, .providerBudgetSweepPercent, .providerBudgetBatch,
        ])
}
