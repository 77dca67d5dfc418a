import AppStoreNotifications
import CryptoPrimitives
import Foundation
import HTTPServer
import Kafka
import SandboxKit
import Synchronization
import Telemetry
import Testing
import WebhookReceiverService
import WebhookReceiverTestSupport

/// `POST /api/webhooks/apple` through the router, no socket, no broker.
@Suite("App Store notification route")
struct AppleNotificationRouteTests {
    static let bundle = "com.example.storefront"
    static let chain = Result { try AppleCertificateChain.generate() }

    /// Keeps raw values; fails every publish when `failing`.
    final class RawPublisher: WebhookPublishing {
        let records = Mutex<[(key: String, value: [UInt8])]>([])
        let failing: Bool
        init(failing: Bool = false) { self.failing = failing }
        var published: [(key: String, value: [UInt8])] { records.withLock { $0 } }
        func publish(key: String, value: [UInt8], completion: @escaping @Sendable (Result<KafkaDeliveryReport, WebhookPublishError>) -> Void) {
            if failing { return completion(.failure(.timedOut(.seconds(1)))) }
            let offset = records.withLock {
                $0.append((key, value)); return Int64($0.count - 1)
            }
            completion(.success(KafkaDeliveryReport(topic: "storefront.apple.notifications.v1", partition: 0, offset: offset)))
        }
    }

    static func app(verifying: Bool = true, apple: RawPublisher, metrics: MetricsRegistry = MetricsRegistry()) throws -> WebhookReceiverApplication {
        var configuration = WebhookReceiverConfiguration()
        if verifying {
            configuration.appleNotifications = SignedNotificationVerifier(
                trustedRoots: try X509Certificate.certificates(pem: try chain.get().rootPEM), bundleID: bundle, environments: [.production, .sandbox])
        }
        return try buildWebhookReceiverApplication(
            verifiers: TestSecrets.bothVerifiers, publisher: FakeWebhookPublisher(), applePublisher: apple, configuration: configuration,
            logger: quietLogger, metrics: metrics)
    }

    static func body(signedWith chain: AppleCertificateChain, uuid: String = "0f9b2d1e-1111-4aaa-8bbb-000000000001") throws -> [UInt8] {
        var signer = try JWTSigner(es256PrivateKeyPEM: chain.leafKeyPEM)
        signer.certificateChain = chain.x5c
        let signed = try signer.sign([
            "notificationType": "EXTERNAL_PURCHASE_TOKEN", "subtype": "UNREPORTED", "notificationUUID": .string(uuid), "version": "2.0",
            "signedDate": .int(Int(Date().timeIntervalSince1970 * 1000)),
            "externalPurchaseToken": ["externalPurchaseId": "SANDBOX_route_1", "tokenCreationDate": 1_700_000_000_000, "bundleId": .string(bundle)],
        ])
        return Array(#"{"signedPayload":"\#(signed)"}"#.utf8)
    }

    static func post(_ app: WebhookReceiverApplication, _ body: [UInt8]) async throws -> HTTPResponse {
        await app.respond(to: try HTTPRequest(method: .post, target: "/api/webhooks/apple", body: body), logger: quietLogger)
    }

    static func count(_ metrics: MetricsRegistry, _ result: String) -> Int {
        metrics.counter("apple_notifications_received_total", help: "", labels: ["result": result]).current
    }

    @Test func verifiedNotificationIsPublishedAsSigned() async throws {
        let publisher = RawPublisher(), metrics = MetricsRegistry()
        let response = try await Self.post(try Self.app(apple: publisher, metrics: metrics), try Self.body(signedWith: try Self.chain.get()))
        #expect(response.status.code == 200)
        let record = try #require(publisher.published.first)
        #expect(record.key == "apple:SANDBOX_route_1")
        let notification = try AppStoreNotification(payload: record.value)
        #expect(notification.notificationUUID == "0f9b2d1e-1111-4aaa-8bbb-000000000001")
        #expect(Self.count(metrics, "published") == 1)
    }

    @Test func chainOfAnotherRootIs401AndPublishesNothing() async throws {
        let publisher = RawPublisher(), metrics = MetricsRegistry()
        let stranger = try AppleCertificateChain.generate()
        let response = try await Self.post(try Self.app(apple: publisher, metrics: metrics), try Self.body(signedWith: stranger))
        #expect(response.status.code == 401)
        #expect(String(decoding: response.body, as: UTF8.self).contains("invalid_signature"))
        #expect(publisher.published.isEmpty)
        #expect(Self.count(metrics, "invalid_signature") == 1)
        // Not a JSON body at all: also 401.
        #expect(try await Self.post(try Self.app(apple: publisher), Array("signedPayload=x".utf8)).status.code == 401)
        #expect(publisher.published.isEmpty)
    }

    @Test func unconfiguredRouteIs404() async throws {
        let publisher = RawPublisher()
        let response = try await Self.post(try Self.app(verifying: false, apple: publisher), try Self.body(signedWith: try Self.chain.get()))
        #expect(response.status.code == 404)
        #expect(String(decoding: response.body, as: UTF8.self).contains("apple_notifications_not_configured"))
        #expect(publisher.published.isEmpty)
    }

    @Test func brokerFailureIs503AndOversizeIs413() async throws {
        let failing = try await Self.post(try Self.app(apple: RawPublisher(failing: true)), try Self.body(signedWith: try Self.chain.get()))
        #expect(failing.status.code == 503)
        #expect(failing.headers["Retry-After"] != nil)
        let publisher = RawPublisher()
        let large = try await Self.post(try Self.app(apple: publisher), [UInt8](repeating: 0x20, count: 64 * 1024 + 1))
        #expect(large.status.code == 413)
        #expect(publisher.published.isEmpty)
    }
}
