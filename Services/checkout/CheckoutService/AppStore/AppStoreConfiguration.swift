import BillingModel
import ServiceSettings

// App Store storefronts and Apple's external purchase tokens (docs/app-store.md).

extension Setting {
    public static let appStorePolicyFile = Setting(
        "APP_STORE_POLICY_FILE",
        "JSON file saying per App Store storefront whether apps may link to a web checkout (GET /api/app-config; reread when it changes); unset: nowhere"
    )
    public static let appStoreBundleID = Setting(
        "APP_STORE_BUNDLE_ID", "the iOS app's bundle id; external purchase tokens of another app are refused (unset: tokens are refused)")
    public static let appStoreAppAppleID = Setting(
        "APP_STORE_APP_APPLE_ID", "the app's Apple ID (a number, App Store Connect); when set, tokens of another app id are refused")
}

extension SettingGroup {
    public static let appStore = SettingGroup("App Store link-out (checkout)", [.appStorePolicyFile, .appStoreBundleID, .appStoreAppAppleID])
}

/// What the checkout needs to know about App Store apps (``SettingGroup/appStore``).
public struct AppStoreConfiguration: Sendable {
    /// The link-out policy file; nil: ``LinkOutPolicy/unconfigured``.
    public var policyFile: String?
    /// Tokens must name this bundle id; nil: no token is accepted.
    public var bundleID: String?
    public var appAppleID: Int64?
    /// Whether the deployment takes Apple's sandbox tokens (`SANDBOX…` ids): a test-mode deployment.
    public var acceptsSandboxTokens: Bool

    public init(policyFile: String? = nil, bundleID: String? = nil, appAppleID: Int64? = nil, acceptsSandboxTokens: Bool = true) {
        self.policyFile = policyFile
        self.bundleID = bundleID
        self.appAppleID = appAppleID
        self.acceptsSandboxTokens = acceptsSandboxTokens
    }

    /// Reads the variables above; the policy file itself is read by ``LinkOutPolicySource``.
    public static func fromEnvironment(_ reader: inout ConfigReader, testMode: Bool) -> AppStoreConfiguration {
        var configuration = AppStoreConfiguration(acceptsSandboxTokens: testMode)
        configuration.policyFile = reader.string(.appStorePolicyFile)
        if let bundle = reader.string(.appStoreBundleID) {
            if ExternalPurchaseToken.isBundleID(bundle) {
                configuration.bundleID = bundle
            } else {
                reader.report(.appStoreBundleID, "must be a bundle id such as com.example.app")
            }
        }
        if let text = reader.string(.appStoreAppAppleID) {
            if let id = Int64(text), id > 0 { configuration.appAppleID = id } else { reader.report(.appStoreAppAppleID, "must be a positive number") }
        }
        return configuration
    }
}
