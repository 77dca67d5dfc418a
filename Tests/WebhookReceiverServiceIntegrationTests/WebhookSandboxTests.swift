import ServiceSettings
import Foundation
import HTTPClient
import BillingModel
import JSONCodec
import ProviderConfiguration
import Providers
import SandboxKit
import SandboxServer
import Telemetry
import Testing
import WebhookReceiverService
import Webhooks

/// The provider sandbox (the only provider double) delivers real signed
/// webhooks to a live receiver.
@Suite("Webhook receiver fed by the provider sandbox")
struct WebhookSandboxTests {
    static let lsAPIKey = "ls_test_receiver_sandbox_key"
    static let lsSecret = "ls_receiver_sandbox_webhook_secret"
    static let psKey = "sk_test_receiver_sandbox_key"

    @Test("paying checkouts of both providers: every delivery is answered 200 and its envelope is on the topic")
    func sandboxDeliveries() async throws {
        let brokers = try testBrokers()
        let watcher = try await TopicWatcher(brokers: brokers)
        let receiver = try await LiveReceiver.start(
            verifiers: [LemonSqueezyWebhookVerifier(secret: Secret(Self.lsSecret)), PaystackWebhookVerifier(secretKey: Secret(Self.psKey))],
            brokers: brokers)

        let sandbox = try ProviderSandboxServer(
            settings: ProviderSandboxSettings(
                sandbox: SandboxConfiguration(
                    lemonSqueezy: LemonSqueezySettings(
                        apiKey: Self.lsAPIKey, webhookSecret: Self.lsSecret,
                        webhookURL: receiver.baseURL + "/api/webhooks/lemonsqueezy", retrySchedule: []),
                    paystack: PaystackSettings(secretKey: Self.psKey, webhookURL: receiver.baseURL + "/api/webhooks/paystack", retrySchedule: []))),
            logger: Logger(service: "receiver-sandbox", minimumLevel: .critical))
        let sandboxURL = "http://127.0.0.1:\(try sandbox.start())"
        let outcome: Result<Void, any Error>
        do {
            outcome = .success(try await exercise(sandbox: sandbox, sandboxURL: sandboxURL, watcher: watcher))
        } catch {
            outcome = .failure(error)
        }
        await sandbox.shutdown()
        await watcher.close()
        try await receiver.stop()
        try outcome.get()
    }

    private func exercise(sandbox: ProviderSandboxServer, sandboxURL: String, watcher: TopicWatcher) async throws {
        let http = HTTPClient()
        let tag = UUID().uuidString.prefix(8).lowercased()
        let lemonSqueezy = LemonSqueezyClient(
            configuration: LemonSqueezyConfiguration(
                apiKey: Secret(Self.lsAPIKey), storeID: "1", webhookSecret: Secret(Self.lsSecret), apiBaseURL: sandboxURL + "/lemonsqueezy"),
            httpClient: http)
        let paystack = PaystackClient(
            configuration: PaystackConfiguration(secretKey: Secret(Self.psKey), apiBaseURL: sandboxURL + "/paystack"),
            httpClient: http)

        let lsCheckout = try await lemonSqueezy.createCheckout(
            CheckoutRequest(
                variantID: "2", email: EmailAddress("ls-\(tag)@example.com"), appUserID: "user-ls-\(tag)", checkoutID: UUID().uuidString,
                ownershipProof: "p"))
        try await pay(
            sandboxURL + "/_sandbox/checkouts/lemonsqueezy/\(lsCheckout.providerCheckoutID)/pay", email: "ls-\(tag)@example.com", http: http)
        let psCheckout = try await paystack.createCheckout(
            CheckoutRequest(
                variantID: "PLN_sbxpremmonth01", email: EmailAddress("ps-\(tag)@example.com"), appUserID: "user-ps-\(tag)",
                checkoutID: UUID().uuidString, ownershipProof: "p"))
        try await pay(sandboxURL + "/_sandbox/checkouts/paystack/\(psCheckout.providerCheckoutID)/pay", email: "ps-\(tag)@example.com", http: http)

        await sandbox.app.settleDeliveries()
        for provider in [SandboxProvider.lemonSqueezy, .paystack] {
            let deliveries = await sandbox.app.deliveries(provider: provider)
            #expect(!deliveries.isEmpty, "the sandbox should have sent \(provider) webhooks")
            for delivery in deliveries {
                #expect(delivery.status == 200, "\(provider) \(delivery.eventName): \(String(describing: delivery.status)) \(delivery.error ?? "")")
                #expect(delivery.outcome == .delivered)
                let ours: Provider = provider == .lemonSqueezy ? .lemonsqueezy : .paystack
                let id = ProviderWebhooks.dedupKey(ours, body: delivery.body)
                let record = await watcher.find(id: id, payload: delivery.body)
                #expect(record != nil, "\(delivery.eventName) (\(id)) should be on the topic")
                #expect(record?.key == ProviderWebhooks.topicKey(ours, body: delivery.body))
                #expect(record?.envelope.eventName == delivery.eventName)
            }
        }
        let lsEvents = await sandbox.app.deliveries(provider: .lemonSqueezy).map(\.eventName)
        #expect(lsEvents.contains("order_created") && lsEvents.contains("subscription_created"), "\(lsEvents)")
        #expect(await sandbox.app.deliveries(provider: .paystack).contains { $0.eventName == "charge.success" })
    }

    private func pay(_ url: String, email: String, http: HTTPClient) async throws {
        let body = try JSONSerialization.data(withJSONObject: ["email": email])
        let response = try await http.post(url, headers: ["Content-Type": "application/json"], body: Array(body))
        try #require(response.isSuccess, "sandbox pay answered \(response.status): \(response.bodyString.prefix(300))")
    }
}
