import Timing
import ServiceSettings

// The provider API limits shared by the checkout and the reconciler through the ledger (ProviderBudgetSettings.fromEnvironment).

extension Setting {
    public static let providerBudgetLemonSqueezyPerMinute = Setting(
        "PROVIDER_BUDGET_LEMONSQUEEZY_PER_MINUTE", default: "300", "Lemon Squeezy API requests per minute shared by every service and replica")
    public static let providerBudgetPaystackPerMinute = Setting(
        "PROVIDER_BUDGET_PAYSTACK_PER_MINUTE", default: "100 with a test key, 600 with a live key",
        "Paystack API requests per minute shared by every service and replica")
    public static let providerBudgetCheckoutReservePercent = Setting(
        "PROVIDER_BUDGET_CHECKOUT_RESERVE_PERCENT", default: "30", "share of the limit only checkouts may use")
    public static let providerBudgetSweepPercent = Setting(
        "PROVIDER_BUDGET_SWEEP_PERCENT", default: "40", "share of the limit the reconciler's sweeps may use (at most 100 minus the reserve)")
}

extension SettingGroup {
    public static let providerBudget = SettingGroup(
        "Provider request budgets",
        [.providerBudgetLemonSqueezyPerMinute, .providerBudgetPaystackPerMinute, .providerBudgetCheckoutReservePercent, .providerBudgetSweepPercent])
}
