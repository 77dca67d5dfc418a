import Timing
import ServiceSettings

// How provider purchases map to entitlements (EntitlementResolver.fromEnvironment).

extension Setting {
    public static let entitlementsFile = Setting(
        "ENTITLEMENTS_FILE", "JSON file mapping entitlement identifiers to provider products, variants and plans; unset: one entitlement per product")
    public static let entitlementsFileOptional = Setting(
        "ENTITLEMENTS_FILE_OPTIONAL", default: "false", "true: a missing ENTITLEMENTS_FILE means one entitlement per product instead of an error")
    public static let entitlementUnpaidGrace = Setting(
        "ENTITLEMENT_UNPAID_GRACE", default: "0", "how long an unpaid subscription keeps access")
    public static let entitlementAttentionGrace = Setting(
        "ENTITLEMENT_ATTENTION_GRACE", default: "0", "how long a subscription needing attention (failed renewal) keeps access")
    public static let entitlementRenewalGrace = Setting(
        "ENTITLEMENT_RENEWAL_GRACE", default: "16 days",
        "how long past its period end a renewing subscription keeps access while the renewal is reported")
    public static let entitlementPartialRefund = Setting(
        "ENTITLEMENT_PARTIAL_REFUND", default: "keep", "what a partial refund does to access: keep or revoke")
}

extension SettingGroup {
    public static let entitlements = SettingGroup(
        "Entitlements",
        [
            .entitlementsFile, .entitlementsFileOptional, .entitlementUnpaidGrace, .entitlementAttentionGrace, .entitlementRenewalGrace,
            .entitlementPartialRefund,
        ])
}
