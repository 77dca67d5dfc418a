import ServiceSettings
import HTTPServer
import ServiceRuntime
import Testing
@testable import WebhookReceiverService

/// The receiver's settings and how it finds a client's address: no
/// application, so no producer (the routes themselves: WebhookRoutesTests in
/// WebhookReceiverServiceIntegrationTests).
@Suite("Webhook receiver settings and client addresses")
struct WebhookSettingsTests {
    static func request(_ provider: String, body: [UInt8], headers: [(String, String)], remoteAddress: String = "127.0.0.1") throws -> HTTPRequest {
        try HTTPRequest(method: .post, target: "/api/webhooks/\(provider)", headers: HTTPHeaders(headers), body: body, remoteAddress: remoteAddress)
    }

    @Test("X-Forwarded-For parsing takes the last non-empty hop, bounded")
    func forwardedHops() throws {
        #expect(ClientAddress.lastForwardedHop(["1.1.1.1, 2.2.2.2"]) == "2.2.2.2")
        #expect(ClientAddress.lastForwardedHop(["1.1.1.1", "3.3.3.3 ,"]) == "3.3.3.3")
        #expect(ClientAddress.lastForwardedHop(["1.1.1.1", " , "]) == "1.1.1.1")
        #expect(ClientAddress.lastForwardedHop([]) == nil)
        #expect(ClientAddress.lastForwardedHop([String(repeating: "9", count: 65)]) == nil)
        let request = try Self.request("paystack", body: [], headers: [("X-Forwarded-For", "5.5.5.5")], remoteAddress: "10.0.0.1")
        #expect(ClientAddress.resolve(request, trustForwardedFor: false) == "10.0.0.1")
        #expect(ClientAddress.resolve(request, trustForwardedFor: true) == "5.5.5.5")
        let bare = try Self.request("paystack", body: [], headers: [], remoteAddress: "")
        #expect(ClientAddress.resolve(bare, trustForwardedFor: true) == nil)
    }

    @Test("settings come from the environment with defaults and clear problems")
    func configurationFromEnvironment() throws {
        var defaults = ConfigReader(Environment([:]))
        let standard = WebhookReceiverConfiguration.fromEnvironment(&defaults)
        try defaults.finish()
        #expect(standard.maxBodyBytes == 1 << 20 && standard.publishTimeout == .seconds(5) && !standard.trustForwardedFor)
        #expect(standard.publishLinger == .zero)

        var custom = ConfigReader(
            Environment([
                "WEBHOOK_MAX_BODY_BYTES": "65536", "WEBHOOK_PUBLISH_TIMEOUT": "1500ms", "WEBHOOK_PUBLISH_LINGER": "2ms",
                "WEBHOOK_TRUST_FORWARDED_FOR": "true",
            ]))
        let read = WebhookReceiverConfiguration.fromEnvironment(&custom)
        try custom.finish()
        #expect(read.maxBodyBytes == 65536 && read.publishTimeout == .milliseconds(1500) && read.trustForwardedFor)
        #expect(read.publishLinger == .milliseconds(2))

        var bad = ConfigReader(
            Environment([
                "WEBHOOK_MAX_BODY_BYTES": "99999999", "WEBHOOK_PUBLISH_TIMEOUT": "10ms", "WEBHOOK_PUBLISH_LINGER": "51ms",
                "WEBHOOK_TRUST_FORWARDED_FOR": "maybe",
            ]))
        _ = WebhookReceiverConfiguration.fromEnvironment(&bad)
        let error = #expect(throws: ConfigurationError.self) { try bad.finish() }
        #expect(
            Set(error?.variables ?? []) == [
                "WEBHOOK_MAX_BODY_BYTES", "WEBHOOK_PUBLISH_TIMEOUT", "WEBHOOK_PUBLISH_LINGER", "WEBHOOK_TRUST_FORWARDED_FOR",
            ])
    }
}
