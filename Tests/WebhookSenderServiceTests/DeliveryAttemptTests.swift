import CryptoPrimitives
import Foundation
import HTTPClient
import BillingModel
import Synchronization
import Testing
@testable import WebhookSenderService

/// One attempt, against a transport that answers as told and records what it was sent.
@Suite struct DeliveryAttemptTests {
    final class RecordingTransport: WebhookTransport {
        struct Failure: Error {}
        let answer: Int?
        let sent = Mutex<[(url: String, headers: HTTPHeaders, body: [UInt8])]>([])
        init(answer: Int?) { self.answer = answer }

        func post(url: String, headers: HTTPHeaders, body: [UInt8]) async throws -> Int {
            sent.withLock { $0.append((url, headers, body)) }
            guard let answer else { throw Failure() }
            return answer
        }
    }

    static let now = Date(timeIntervalSince1970: 1_790_000_000)
    static let delivery = Delivery(endpointID: "ep_1", eventID: "evt-1", orderingKey: "u1", body: #"{"id":"evt-1"}"#, attempts: 0)

    static func endpoint(previous: String? = nil, until: Date? = nil) throws -> WebhookEndpoint {
        WebhookEndpoint(
            id: "ep_1", url: "http://127.0.0.1:1/hook", secret: try StandardWebhookSignature.generateSecret(), eventTypes: [],
            previousSecret: previous, previousSecretExpiresAt: until)
    }

    @Test func a2xxIsDeliveredAndTheRequestVerifiesWithTheEndpointsSecret() async throws {
        let transport = RecordingTransport(answer: 204)
        let endpoint = try Self.endpoint()
        #expect(await DeliveryAttempt.perform(Self.delivery, to: endpoint, through: transport, at: Self.now) == .delivered(status: 204))
        let request = try #require(transport.sent.withLock { $0.first })
        #expect(request.url == endpoint.url && request.body == Array(Self.delivery.body.utf8))
        #expect(request.headers["webhook-id"] == "evt-1" && request.headers["webhook-timestamp"] == "1790000000")
        let verified = StandardWebhookSignature.verify(
            header: try #require(request.headers["webhook-signature"]), id: "evt-1", timestamp: "1790000000", body: request.body,
            key: try StandardWebhookSignature.key(of: endpoint.secret), now: Self.now)
        #expect(verified)
    }

    @Test func otherAnswersAndNoAnswerFail() async throws {
        let endpoint = try Self.endpoint()
        #expect(
            await DeliveryAttempt.perform(Self.delivery, to: endpoint, through: RecordingTransport(answer: 500), at: Self.now)
                == .failed(status: 500, reason: "answered 500"))
        #expect(
            await DeliveryAttempt.perform(Self.delivery, to: endpoint, through: RecordingTransport(answer: 301), at: Self.now)
                != .delivered(status: 301))
        guard
            case .failed(nil, _) = await DeliveryAttempt.perform(Self.delivery, to: endpoint, through: RecordingTransport(answer: nil), at: Self.now)
        else {
            Issue.record("a transport error must fail without a status")
            return
        }
    }

    @Test func duringARotationBothSecretsSignUntilTheOldOneExpires() throws {
        let old = try StandardWebhookSignature.generateSecret()
        let endpoint = try Self.endpoint(previous: old, until: Self.now.addingTimeInterval(60))
        let during = try DeliveryAttempt.headers(for: Self.delivery, endpoint: endpoint, at: Self.now)
        let oldKey = try StandardWebhookSignature.key(of: old)
        #expect(
            StandardWebhookSignature.verify(
                header: during["webhook-signature"] ?? "", id: "evt-1", timestamp: during["webhook-timestamp"] ?? "",
                body: Array(Self.delivery.body.utf8), key: oldKey, now: Self.now))
        let later = Self.now.addingTimeInterval(120)
        let after = try DeliveryAttempt.headers(for: Self.delivery, endpoint: endpoint, at: later)
        #expect((after["webhook-signature"] ?? "").split(separator: " ").count == 1)
        #expect(
            !StandardWebhookSignature.verify(
                header: after["webhook-signature"] ?? "", id: "evt-1", timestamp: after["webhook-timestamp"] ?? "",
                body: Array(Self.delivery.body.utf8), key: oldKey, now: later))
    }

    @Test func anEndpointWithTypesGetsOnlyThose() throws {
        var endpoint = try Self.endpoint()
        #expect(endpoint.wants("entitlement.granted") && endpoint.wants("purchase.redemption_issued") && endpoint.wants("purchase.later"))
        endpoint.eventTypes = ["entitlement.refunded"]
        #expect(endpoint.wants("entitlement.refunded") && !endpoint.wants("entitlement.granted"))
        #expect(!endpoint.wants("purchase.redemption_issued"), "filtered to entitlement types: no redemption links")
        endpoint.eventTypes = ["purchase.redemption_issued"]
        #expect(endpoint.wants("purchase.redemption_issued") && !endpoint.wants("entitlement.granted"))
    }

    @Test func theKnownTypesAreEveryEntitlementTypeAndEveryPurchaseEventType() {
        #expect(WebhookEndpoint.knownEventTypes.count == Set(WebhookEndpoint.knownEventTypes).count)
        #expect(
            Set(WebhookEndpoint.knownEventTypes)
                == Set(EntitlementChange.Kind.allCases.map(\.rawValue)).union(["purchase.redemption_issued"]))
    }

    @Test func aDeliveryDescribesItselfWithoutItsBody() {
        let delivery = Delivery(
            endpointID: "ep_1", eventID: "evt-2", orderingKey: "lemonsqueezy:subscription:1",
            body: #"{"redemption_url":"https://shop.example.com/redeem/rt_secret"}"#, attempts: 1)
        for text in ["\(delivery)", String(reflecting: delivery)] {
            #expect(!text.contains("rt_secret") && text.contains("evt-2"), "\(text)")
        }
    }
}
