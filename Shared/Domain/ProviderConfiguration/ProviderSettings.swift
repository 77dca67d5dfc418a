import BillingModel
import ServiceSettings

// The payment providers' setting groups (ProvidersConfiguration.fromEnvironment): a service reads only the group of what it does with them, so the others' secrets are never read. Each provider declares its settings in its folder (Shared/Domain/Providers/<Provider>/Configuration).

extension SettingGroup {
    public static let providerAPI = SettingGroup(
        "Payment providers: calling their APIs", Provider.allCases.flatMap { $0.configurationRules.settings(for: .api) })
    public static let providerWebhooks = SettingGroup(
        "Payment providers: verifying their webhooks", Provider.allCases.flatMap { $0.configurationRules.settings(for: .webhooks) })
}
