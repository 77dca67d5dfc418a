import AppStoreReports
import Foundation
import ServiceSettings

// The reports to Apple's External Purchase Server API, run by the
// webhook-sender (docs/app-store.md, "Reports to Apple"). Off unless the
// App Store Connect key is configured.

extension Setting {
    public static let appStoreReportsIssuerID = Setting(
        "APP_STORE_CONNECT_ISSUER_ID", "the App Store Connect API key's issuer id (iss); with the three below it turns the reports to Apple on")
    public static let appStoreReportsKeyID = Setting("APP_STORE_CONNECT_KEY_ID", "the App Store Connect API key's id (kid)")
    public static let appStoreReportsPrivateKey = Setting(
        "APP_STORE_CONNECT_PRIVATE_KEY", secret: true, "the App Store Connect API key (the .p8 file's PEM text, P-256)")
    public static let appStoreReportsBundleID = Setting("APP_STORE_BUNDLE_ID", "the iOS app's bundle id (bid) the reports are made for")
    public static let appStoreReportsBaseURL = Setting(
        "APP_STORE_REPORTS_BASE_URL",
        "where reports go instead of Apple's hosts (the provider sandbox's emulated Apple); unset: api.storekit.apple.com, and api.storekit-sandbox.apple.com for SANDBOX tokens"
    )
    public static let appStoreReportsInterval = Setting(
        "APP_STORE_REPORTS_INTERVAL", default: "30s", "how often the reporter looks for new lines and due sends")
    public static let appStoreReportsNoPurchaseAfter = Setting(
        "APP_STORE_REPORTS_NO_PURCHASE_AFTER", default: "7d",
        "a token whose checkouts bought nothing this long after the first is reported NO_LINE_ITEM (Apple reminds after 10 days)")
    public static let appStoreReportsRetrySchedule = Setting(
        "APP_STORE_REPORTS_RETRY_SCHEDULE", default: "1m,5m,30m,2h,6h",
        "waits between sends Apple did not take (401, 429 without Retry-After, 5xx, no answer); the last repeats, a line is never given up on")
}

extension SettingGroup {
    public static let appStoreReports = SettingGroup(
        "App Store reports (webhook-sender)",
        [
            .appStoreReportsIssuerID, .appStoreReportsKeyID, .appStoreReportsPrivateKey, .appStoreReportsBundleID, .appStoreReportsBaseURL,
            .appStoreReportsInterval, .appStoreReportsNoPurchaseAfter, .appStoreReportsRetrySchedule,
        ])
}

/// The reporter's settings; nil ``key`` turns it off.
public struct AppStoreReporterConfiguration: Sendable {
    public var key: AppStoreConnectKey?
    public var baseURL: String?
    public var interval: Duration = .seconds(30)
    public var noPurchaseAfter: Duration = .seconds(7 * 86_400)
    public var retrySchedule = RetrySchedule(delays: [.seconds(60), .seconds(300), .seconds(1800), .seconds(7200), .seconds(21_600)])

    public init(key: AppStoreConnectKey? = nil) {
        self.key = key
    }

    /// Reads the group; a key configured in part, or one that does not parse, is a start-up error.
    public static func fromEnvironment(_ reader: inout ConfigReader) -> AppStoreReporterConfiguration {
        var configuration = AppStoreReporterConfiguration()
        let issuer = reader.string(.appStoreReportsIssuerID), keyID = reader.string(.appStoreReportsKeyID)
        let pem = reader.secret(.appStoreReportsPrivateKey), bundle = reader.string(.appStoreReportsBundleID)
        configuration.baseURL = reader.string(.appStoreReportsBaseURL)
        configuration.interval = reader.duration(.appStoreReportsInterval, default: .seconds(30))
        configuration.noPurchaseAfter = reader.duration(.appStoreReportsNoPurchaseAfter, default: .seconds(7 * 86_400))
        configuration.retrySchedule = reader.value(.appStoreReportsRetrySchedule, RetrySchedule.parser, default: configuration.retrySchedule)
        if configuration.noPurchaseAfter > .seconds(10 * 86_400) {
            reader.report(.appStoreReportsNoPurchaseAfter, "must be at most 10d: Apple reminds of unreported tokens ten days after their creation")
        }
        guard let issuer, let keyID, let pem, let bundle else {
            // The bundle id alone is the checkout's setting too; any part of the key means reports were wanted.
            if issuer != nil || keyID != nil || pem != nil {
                reader.report(
                    .appStoreReportsIssuerID,
                    "the reports to Apple need all of APP_STORE_CONNECT_ISSUER_ID, _KEY_ID, _PRIVATE_KEY and APP_STORE_BUNDLE_ID")
            }
            return configuration
        }
        do {
            configuration.key = try AppStoreConnectKey(issuerID: issuer, keyID: keyID, bundleID: bundle, privateKeyPEM: pem.reveal())
        } catch {
            reader.report(.appStoreReportsPrivateKey, "is not a P-256 private key in PEM (an App Store Connect .p8 file)")
        }
        return configuration
    }
}
