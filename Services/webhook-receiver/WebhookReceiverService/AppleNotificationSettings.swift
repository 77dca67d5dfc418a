import AppStoreNotifications
import CryptoPrimitives
import Foundation
import ServiceSettings

// App Store Server Notifications (POST /api/webhooks/apple; docs/app-store.md, "Notifications from Apple").

extension Setting {
    public static let appleRootCertificatesFile = Setting(
        "APPLE_ROOT_CERTIFICATES_FILE",
        "PEM file of the roots App Store notifications must chain to (Apple Root CA - G3; a local stack's sandbox root in tests); unset: POST /api/webhooks/apple answers 404"
    )
    public static let appleNotificationsBundleID = Setting(
        "APP_STORE_BUNDLE_ID",
        "the iOS app's bundle id; App Store notifications for another app are refused (required with APPLE_ROOT_CERTIFICATES_FILE)")
    public static let appleNotificationsAcceptSandbox = Setting(
        "APPLE_NOTIFICATIONS_ACCEPT_SANDBOX", default: "false",
        "true: also take notifications of Apple's sandbox environment (test deployments; Apple sends them to the sandbox URL set in App Store Connect)"
    )
}

extension SettingGroup {
    public static let appleNotifications = SettingGroup(
        "App Store notifications (webhook-receiver)", [.appleRootCertificatesFile, .appleNotificationsBundleID, .appleNotificationsAcceptSandbox])
}

extension SignedNotificationVerifier {
    /// The verifier the settings describe; nil (and no problem) when
    /// `APPLE_ROOT_CERTIFICATES_FILE` is unset. A file that cannot be read or
    /// holds no certificate, or a missing bundle id, is a start-up problem.
    public static func fromEnvironment(_ reader: inout ConfigReader) -> SignedNotificationVerifier? {
        let sandbox = reader.bool(.appleNotificationsAcceptSandbox, default: false)
        let bundle = reader.string(.appleNotificationsBundleID)
        guard let path = reader.string(.appleRootCertificatesFile) else { return nil }
        guard let bundle else {
            reader.report(.appleNotificationsBundleID, "is required with APPLE_ROOT_CERTIFICATES_FILE")
            return nil
        }
        let roots: [X509Certificate]
        do {
            roots = try X509Certificate.certificates(pem: try String(contentsOfFile: path, encoding: .utf8))
        } catch {
            reader.report(.appleRootCertificatesFile, "cannot read certificates from \(path): \(error)")
            return nil
        }
        return SignedNotificationVerifier(trustedRoots: roots, bundleID: bundle, environments: sandbox ? [.production, .sandbox] : [.production])
    }
}
