import AppStoreReports
import CryptoPrimitives
import Foundation
import HTTPClient
import SandboxKit
import SandboxServer
import Telemetry
import Testing
import TestSupport

/// The client against the sandbox's emulated External Purchase Server API,
/// served in process: real ES256 tokens, real HTTP, Apple's answers.
@Suite struct AppStoreReportClientTests {
    /// A P-256 key in PKCS#8 PEM, as App Store Connect's `.p8` files are, made by openssl.
    static func privateKeyPEM() async throws -> String {
        String(
            decoding: try await ChildProcess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]), as: UTF8.self)
    }

    static func withSandbox<T>(acceptingKeyOf pem: String, _ body: (String, SandboxApp) async throws -> T) async throws -> T {
        let apple = AppleSettings(
            issuerID: "issuer-1", keyID: "KEY1", bundleID: "com.example.app", publicKeyPEM: try RecordSigner(privateKeyPEM: pem).publicKeyPEM())
        let server = try ProviderSandboxServer(
            settings: ProviderSandboxSettings(sandbox: SandboxConfiguration(apple: apple), port: 0),
            logger: Logger(service: "app-store-report-tests", minimumLevel: .error))
        let port = try server.start()
        do {
            let result = try await body("http://127.0.0.1:\(port)", server.app)
            await server.shutdown()
            return result
        } catch {
            await server.shutdown()
            throw error
        }
    }

    static func client(_ pem: String, _ base: String) throws -> AppStoreReportClient {
        let key = try AppStoreConnectKey(issuerID: "issuer-1", keyID: "KEY1", bundleID: "com.example.app", privateKeyPEM: pem)
        let http = HTTPClient()
        return AppStoreReportClient(key: key, baseURLOverride: base) { try await http.execute($0) }
    }

    static func purchaseReport() -> ExternalPurchaseReport {
        let at = Date(timeIntervalSince1970: 1_780_000_000)
        let movement = PurchaseMovement(
            key: "ls:order-\(UUID().uuidString)", kind: .oneTimeBuy, at: at, amount: 499, currency: "EUR", productID: "coins")
        let token = ReportPlan.Token(externalPurchaseID: "SANDBOX_\(UUID().uuidString)", tokenType: "ACQUISITION", storefront: "DEU", firstSeen: at)
        let planned = ReportPlan.due(for: token, movements: [movement], accepted: [], now: at, noPurchaseAfter: 86_400)
        return planned[0].report(for: token, requestIdentifier: UUID().uuidString.lowercased())
    }

    @Test func aReportIsAcceptedOnceAndItsResendCountsAsAccepted() async throws {
        let pem = try await Self.privateKeyPEM()
        try await Self.withSandbox(acceptingKeyOf: pem) { base, _ in
            let client = try Self.client(pem, base)
            let report = Self.purchaseReport()
            #expect(await client.deliver(report) == .accepted)
            // The answer to the first send was lost, say: the same request again is Apple's duplicate, which Apple has.
            #expect(await client.deliver(report) == .accepted)
            let listed = try await HTTPClient().get(base + "/_sandbox/apple/external-purchase/reports")
            let reports = (try JSONSerialization.jsonObject(with: Data(listed.body)) as? [String: Any])?["reports"] as? [Any]
            #expect(reports?.count == 1)
        }
    }

    @Test func unauthorizedRateLimitedAndFailingAnswersAreRetriedNeverRefused() async throws {
        let pem = try await Self.privateKeyPEM()
        let otherPEM = try await Self.privateKeyPEM()
        try await Self.withSandbox(acceptingKeyOf: pem) { base, app in
            let report = Self.purchaseReport()
            let stranger = try Self.client(otherPEM, base)
            guard case .retry = await stranger.deliver(report) else {
                Issue.record("a token of another key must be retried (401), not accepted or refused")
                return
            }
            _ = await app.handle(
                SandboxRequest(method: "POST", target: "/_sandbox/apple/external-purchase/faults", body: Array(#"{"answer_next":[429,500]}"#.utf8)))
            let client = try Self.client(pem, base)
            guard case .retry = await client.deliver(report), case .retry = await client.deliver(report) else {
                Issue.record("429 and 500 must be retried")
                return
            }
            #expect(await client.deliver(report) == .accepted)
        }
    }

    @Test func aLineApplesRulesRefuseIsRefusedWithApplesReason() async throws {
        let pem = try await Self.privateKeyPEM()
        try await Self.withSandbox(acceptingKeyOf: pem) { base, _ in
            var report = Self.purchaseReport()
            report.lineItems?[0].referenceLineItemId = "never-sent"
            report.lineItems?[0].eventType = "REFUND"
            let client = try Self.client(pem, base)
            guard case .refused(let reason) = await client.deliver(report) else {
                Issue.record("a refund of a line Apple never received must be refused")
                return
            }
            #expect(reason.contains("400") && reason.contains("InvalidLineItemError"))
        }
    }

    @Test func theKeyNeverPrintsItsSecret() async throws {
        let pem = try await Self.privateKeyPEM()
        let key = try AppStoreConnectKey(issuerID: "issuer-1", keyID: "KEY1", bundleID: "com.example.app", privateKeyPEM: pem)
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        for printed in [String(describing: key), "\(key)", String(reflecting: key)] {
            #expect(!printed.contains(body.prefix(24)))
            #expect(printed.contains("KEY1"))
        }
    }

    @Test func sandboxTokensGoToApplesSandboxHost() async throws {
        let key = try AppStoreConnectKey(issuerID: "i", keyID: "k", bundleID: "b", privateKeyPEM: try await Self.privateKeyPEM())
        let client = AppStoreReportClient(key: key) { _ in HTTPClientResponse(status: 200) }
        #expect(client.baseURL(for: "SANDBOX_abc") == AppStoreReportClient.sandboxURL)
        #expect(client.baseURL(for: "0f2c-live") == AppStoreReportClient.productionURL)
    }
}
