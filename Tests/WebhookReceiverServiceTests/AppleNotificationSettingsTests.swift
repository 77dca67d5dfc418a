import AppStoreNotifications
import Foundation
import SandboxKit
import ServiceSettings
import Testing
import WebhookReceiverService

/// `APPLE_ROOT_CERTIFICATES_FILE`, `APP_STORE_BUNDLE_ID`, `APPLE_NOTIFICATIONS_ACCEPT_SANDBOX`.
@Suite("App Store notification settings")
struct AppleNotificationSettingsTests {
    static func read(_ variables: [String: String]) -> (SignedNotificationVerifier?, (any Error)?) {
        var reader = ConfigReader(Environment(variables))
        let verifier = WebhookReceiverConfiguration.fromEnvironment(&reader).appleNotifications
        do {
            try reader.finish()
            return (verifier, nil)
        } catch {
            return (verifier, error)
        }
    }

    @Test func unsetMeansNoVerifierAndNoProblem() {
        let (verifier, problem) = Self.read([:])
        #expect(verifier == nil && problem == nil)
    }

    @Test func aRootFileWithABundleIDMakesAVerifier() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("apple-root-\(UUID().uuidString).pem").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try AppleCertificateChain.generate().rootPEM.write(toFile: file, atomically: true, encoding: .utf8)

        let (live, problem) = Self.read(["APPLE_ROOT_CERTIFICATES_FILE": file, "APP_STORE_BUNDLE_ID": "com.example.app"])
        #expect(problem == nil)
        #expect(live?.bundleID == "com.example.app" && live?.environments == [.production])
        let (test, _) = Self.read(["APPLE_ROOT_CERTIFICATES_FILE": file, "APP_STORE_BUNDLE_ID": "a.b", "APPLE_NOTIFICATIONS_ACCEPT_SANDBOX": "true"])
        #expect(test?.environments == [.production, .sandbox])

        // Without the bundle id, or with a file that holds no certificate: start-up problems.
        #expect(Self.read(["APPLE_ROOT_CERTIFICATES_FILE": file]).1 != nil)
        #expect(Self.read(["APPLE_ROOT_CERTIFICATES_FILE": file + ".missing", "APP_STORE_BUNDLE_ID": "a.b"]).1 != nil)
    }
}
