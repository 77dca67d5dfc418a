import Foundation
import Kafka
import BillingModel
import Providers
import TestSupport
import Webhooks
@testable import ReconcilerService
import Testing

/// The reconciler decides what to fetch from a webhook's keys
/// (``Webhooks/ProviderWebhooks/keys(_:)``), not its full normalisation:
/// for every provider's webhook fixtures the keys are normalisation's and
/// the fetches the same as decided from the normalised event.
@Suite struct FetchKeysTests {
    static let receivedAt = Date(timeIntervalSince1970: 1_800_000_000)

    static func envelope(_ provider: Provider, _ body: [UInt8]) -> WebhookEnvelope {
        WebhookEnvelope(id: "dedup-1", provider: provider, eventName: "", receivedAt: receivedAt, payload: body)
    }

    @Test(arguments: Provider.allCases) func everyFixtureFetchesWhatItsNormalisedEventWould(provider: Provider) throws {
        let names = try TestSupport.Fixture.names(withPrefix: "\(provider.rawValue).webhook.")
        try #require(!names.isEmpty, "no webhook fixtures of \(provider.rawValue)")
        var fetching = 0
        for name in names {
            let envelope = Self.envelope(provider, try TestSupport.Fixture.bytes(name))
            let normalised = try ProviderWebhooks.normalize(envelope)
            let keys = try ProviderWebhooks.keys(envelope)
            #expect(keys.kind == normalised.kind, "\(name)")
            #expect(keys.subscriptionID == normalised.subscriptionID, "\(name)")
            #expect(keys.orderID == normalised.orderID, "\(name)")
            #expect(keys.invoiceID == normalised.invoiceID, "\(name)")
            #expect(keys.transactionReference == normalised.transactionReference, "\(name)")
            #expect(keys.customerID == normalised.customerID, "\(name)")

            let record = KafkaConsumerRecord(topic: Topics.webhooks, partition: 0, offset: 1, key: nil, value: RecordCoding.encode(envelope))
            let expected = ReconcileRecordDecoder.requests(for: normalised, envelope: envelope)
            #expect(ReconcileRecordDecoder.decode(record, commandDelay: .seconds(5)) == .requests(expected), "\(name)")
            if !expected.isEmpty { fetching += 1 }
        }
        // The fixtures name objects to fetch: the comparison is not of empty lists only.
        #expect(fetching > 0)
    }

    @Test(arguments: Provider.allCases) func aBodyNormalisationRefusesIsRefused(provider: Provider) {
        for body in ["not json", "[]", "{}", #"{"meta":{},"data":{}}"#, #"{"event":"charge.success","data":7}"#] {
            let envelope = Self.envelope(provider, Array(body.utf8))
            let normalised = Result { () throws(WebhookPayloadError) in try ProviderWebhooks.normalize(envelope) }
            let keys = Result { () throws(WebhookPayloadError) in try ProviderWebhooks.keys(envelope) }
            switch (normalised, keys) {
            case (.success, .success), (.failure, .failure): break
            default: Issue.record("\(provider.rawValue) \(body): normalised \(normalised), keys \(keys)")
            }
        }
    }
}
