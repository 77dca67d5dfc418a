import ServiceSettings

// The keys of the entitlement changes' signatures: the private one in the
// projector only, the public ones in every consumer (docs/webhooks-out.md, "Signed changes").

extension Setting {
    public static let entitlementSigningKey = Setting(
        "ENTITLEMENT_SIGNING_KEY", required: true, secret: true,
        "PEM of the P-256 private key the projector signs each entitlement change with (held by the projector only)")
    public static let entitlementVerifyKeysFile = Setting(
        "ENTITLEMENT_VERIFY_KEYS_FILE", required: true,
        "PEM file of the projector's P-256 public keys (the current one, and the previous one during a rotation); unsigned changes are dropped")
}

extension SettingGroup {
    public static let entitlementSigning = SettingGroup("Entitlement change signing (projector)", [.entitlementSigningKey])
    public static let entitlementVerification = SettingGroup("Entitlement change verification", [.entitlementVerifyKeysFile])
}
