import CryptoPrimitives
import Foundation
import HTTPClient
import BillingModel
import TestSupport
import Testing
import WebhookReceiverService
import WebhookReceiverTestSupport
import Webhooks

/// The receiver on a real socket, publishing to the real broker (KAFKA_BROKERS).
@Suite("Webhook receiver over a real socket")
struct WebhookLiveTests {
    @Test("signed deliveries of both providers are answered 200 only once their envelope is on the topic")
    func publishesSignedDeliveries() async throws {
        let brokers = try testBrokers()
        let watcher = try await TopicWatcher(brokers: brokers)
        let receiver = try await LiveReceiver.start(brokers: brokers)

        let (lsBody, webhookID) = try Bodies.lemonSqueezy()
        let ls = try await receiver.signedPost(.lemonsqueezy, body: lsBody)
        #expect(ls.status == 200)
        #expect(ls.bodyString == #"{"success":true}"#)
        #expect(ls.headers["Content-Type"] == "application/json")

        let (psBody, chargeID) = try Bodies.paystack()
        let ps = try await receiver.signedPost(.paystack, body: psBody)
        #expect(ps.status == 200)
        #expect(ps.bodyString == #"{"success":true}"#)

        let lsRecord = try #require(await watcher.find(id: "lemonsqueezy:\(webhookID)"), "Lemon Squeezy envelope not on the topic")
        #expect(lsRecord.key == "lemonsqueezy:sub_880123")
        #expect(lsRecord.envelope.provider == .lemonsqueezy)
        #expect(lsRecord.envelope.eventName == "subscription_created")
        #expect(lsRecord.envelope.payload.bytes == lsBody, "the payload must be the raw body, byte for byte")
        #expect(abs(lsRecord.envelope.receivedAt.timeIntervalSinceNow) < 300)

        let psRecord = try #require(await watcher.find(id: "paystack:charge.success:\(chargeID)"), "Paystack envelope not on the topic")
        #expect(psRecord.key == ProviderWebhooks.read(.paystack, body: psBody, receivedAt: .distantPast).topicKey)
        #expect(psRecord.key.hasPrefix("paystack:") && psRecord.key != "paystack:unparsed")
        #expect(psRecord.envelope.eventName == "charge.success")
        #expect(psRecord.envelope.payload.bytes == psBody)

        let metrics = try await receiver.metricsText()
        #expect(metrics.contains(#"webhooks_received_total{provider="lemonsqueezy",result="published"} 1"#))
        #expect(metrics.contains(#"webhooks_received_total{provider="paystack",result="published"} 1"#))
        #expect(metrics.contains(#"webhooks_publish_duration_seconds_count{provider="paystack"} 1"#))

        await watcher.close()
        try await receiver.stop()
    }

    @Test("bad, missing and cross-provider signatures are 401 and nothing is published")
    func refusedDeliveriesAreNotPublished() async throws {
        let brokers = try testBrokers()
        let watcher = try await TopicWatcher(brokers: brokers)
        let receiver = try await LiveReceiver.start(brokers: brokers)

        let (lsBody, webhookID) = try Bodies.lemonSqueezy()
        let (psBody, chargeID) = try Bodies.paystack()
        let attempts: [(Provider, [UInt8], [(String, String)])] = [
            (.lemonsqueezy, lsBody, [("X-Signature", Signer.lemonSqueezy(lsBody, secret: "not-the-secret"))]),
            (.lemonsqueezy, lsBody, []),
            (.lemonsqueezy, lsBody, [("x-paystack-signature", Signer.paystack(lsBody))]),
            (.paystack, psBody, [("x-paystack-signature", String(repeating: "0", count: 128))]),
            (.paystack, psBody, []),
            (.paystack, psBody, [("X-Signature", Signer.lemonSqueezy(psBody))]),
        ]
        for (provider, body, headers) in attempts {
            let response = try await receiver.post(provider, body: body, headers: headers)
            #expect(response.status == 401, "\(provider) \(headers.map(\.0))")
            #expect(response.bodyString == #"{"success":false,"error":"Invalid signature","code":"invalid_signature"}"#)
        }

        // A correctly signed marker per provider, made from the same fixture, so
        // it has the same key and lands on the same partition as the refused
        // bodies. Each refusal was answered before its marker was sent, so had a
        // refused body been published, it would sit before the marker in that
        // partition: once the watcher has read the markers, it has read past it.
        let (lsMarker, lsMarkerID) = try Bodies.lemonSqueezy()
        let (psMarker, psMarkerID) = try Bodies.paystack()
        #expect(try await receiver.signedPost(.lemonsqueezy, body: lsMarker).status == 200)
        #expect(try await receiver.signedPost(.paystack, body: psMarker).status == 200)
        let lsRecord = await watcher.find(id: "lemonsqueezy:\(lsMarkerID)")
        let psRecord = await watcher.find(id: "paystack:charge.success:\(psMarkerID)")
        #expect(lsRecord != nil && psRecord != nil, "the markers should be on the topic")
        #expect(lsRecord?.key == ProviderWebhooks.read(.lemonsqueezy, body: lsBody, receivedAt: .distantPast).topicKey, "same key, so same partition")
        #expect(psRecord?.key == ProviderWebhooks.read(.paystack, body: psBody, receivedAt: .distantPast).topicKey, "same key, so same partition")
        #expect(watcher.records(id: "lemonsqueezy:\(webhookID)").isEmpty)
        #expect(watcher.records(id: "paystack:charge.success:\(chargeID)").isEmpty)

        let metrics = try await receiver.metricsText()
        #expect(metrics.contains(#"webhooks_received_total{provider="lemonsqueezy",result="invalid_signature"} 3"#))
        #expect(metrics.contains(#"webhooks_received_total{provider="paystack",result="invalid_signature"} 3"#))
        #expect(metrics.contains(#"webhooks_received_total{provider="paystack",result="published"} 1"#), "the marker only")

        await watcher.close()
        try await receiver.stop()
    }

    @Test("a body over WEBHOOK_MAX_BODY_BYTES is refused by the server with 413 and counted")
    func oversizeIsRefusedByTheServer() async throws {
        let brokers = try testBrokers()
        let receiver = try await LiveReceiver.start(brokers: brokers, configuration: WebhookReceiverConfiguration(maxBodyBytes: 4096))
        let body = Array(repeating: UInt8(ascii: " "), count: 4097)
        let response = try await receiver.signedPost(.paystack, body: body)
        #expect(response.status == 413)
        #expect(response.bodyString == #"{"success":false,"error":"Request body exceeds 4096 bytes","code":"payload_too_large"}"#)
        // At the limit is fine as far as size goes (this one is not signed).
        let atLimit = try await receiver.post(.paystack, body: Array(repeating: UInt8(ascii: " "), count: 4096), headers: [])
        #expect(atLimit.status == 401)
        let metrics = try await receiver.metricsText()
        #expect(metrics.contains(#"webhooks_received_total{provider="paystack",result="too_large"} 1"#))
        try await receiver.stop()
    }

    @Test("a verified body just under the 1 MiB limit reaches the topic (its base64 envelope is about 1.4 MB)")
    func theLargestAcceptedBodyIsStored() async throws {
        let brokers = try testBrokers()
        let watcher = try await TopicWatcher(brokers: brokers)
        let receiver = try await LiveReceiver.start(brokers: brokers)
        let padding = String(repeating: "x", count: WebhookReceiverConfiguration().maxBodyBytes - 200)
        let body = Array(#"{"event":"charge.dispute.remind","data":{"id":\#(Int.random(in: 1...999_999_999)),"note":"\#(padding)"}}"#.utf8)
        #expect(body.count < WebhookReceiverConfiguration().maxBodyBytes)
        let response = try await receiver.signedPost(.paystack, body: body)
        #expect(response.status == 200, "\(response.bodyString)")
        let id = "paystack:sha256:\(Hex.encode(SHA256.hash(body)))"
        let record = try #require(await watcher.find(id: id), "the large envelope is not on the topic")
        #expect(record.envelope.payload.bytes == body)
        await watcher.close()
        try await receiver.stop()
    }

    @Test("a verified body that cannot be parsed is published under <provider>:unparsed and answered 200")
    func unparsedBodiesAreKept() async throws {
        let brokers = try testBrokers()
        let watcher = try await TopicWatcher(brokers: brokers)
        let receiver = try await LiveReceiver.start(brokers: brokers)

        for provider in Signer.providers {
            let body = Array("<html>not json \(UUID().uuidString)</html>".utf8)
            let response = try await receiver.signedPost(provider, body: body)
            #expect(response.status == 200)
            #expect(response.bodyString == #"{"success":true}"#)
            let id = "\(provider.rawValue):sha256:\(Hex.encode(SHA256.hash(body)))"
            let record = try #require(await watcher.find(id: id), "\(provider) unparsed envelope not on the topic")
            #expect(record.key == "\(provider.rawValue):unparsed")
            #expect(record.envelope.eventName == "")
            #expect(record.envelope.payload.bytes == body)
        }
        let metrics = try await receiver.metricsText()
        #expect(metrics.contains(#"webhooks_unparsed_total{provider="lemonsqueezy"} 1"#))
        #expect(metrics.contains(#"webhooks_received_total{provider="lemonsqueezy",result="published"} 1"#))

        await watcher.close()
        try await receiver.stop()
    }

    @Test("/healthz and /readyz answer, the broker check passes once topics exist")
    func readiness() async throws {
        let brokers = try testBrokers()
        let receiver = try await LiveReceiver.start(brokers: brokers)
        #expect(try await receiver.client.get(receiver.baseURL + "/healthz").status == 200)
        #expect(await eventually(timeout: .seconds(15)) { receiver.app.topicSetup?.isDone == true })
        #expect(await eventually(timeout: .seconds(10)) { (try? await receiver.client.get(receiver.baseURL + "/readyz").status) == 200 })
        let ready = try await receiver.client.get(receiver.baseURL + "/readyz").bodyString
        #expect(ready.contains(#""name":"kafka""#))
        try await receiver.stop()
    }
}
