import Foundation
import Kafka
import BillingModel
import Providers
@testable import ReconcilerService
import Testing

/// Which objects a consumed record makes the reconciler fetch.
@Suite struct RecordDecoderTests {
    static let receivedAt = Date(timeIntervalSince1970: 1_800_000_000)

    func webhook(_ provider: Provider, _ body: String, id: String = "dedup-1") throws -> KafkaConsumerRecord {
        let envelope = WebhookEnvelope(id: id, provider: provider, eventName: "", receivedAt: Self.receivedAt, payload: Array(body.utf8))
        return KafkaConsumerRecord(topic: Topics.webhooks, partition: 0, offset: 1, key: nil, value: RecordCoding.encode(envelope))
    }

    func requests(_ record: KafkaConsumerRecord) -> [ReconcileRequest]? {
        if case .requests(let found) = ReconcileRecordDecoder.decode(record, commandDelay: .seconds(5)) { return found }
        return nil
    }

    @Test func aLemonSqueezySubscriptionOrInvoiceEventFetchesTheSubscription() throws {
        let updated =
            #"{"meta":{"event_name":"subscription_updated","webhook_id":"5e0c1c33-5f36-4b9f-9d59-2f1b3f1f9a01"},"data":{"type":"subscriptions","id":"77","attributes":{"order_id":9,"status":"active"}}}"#
        let found = try #require(requests(try webhook(.lemonsqueezy, updated)))
        #expect(found.map(\.target) == [EntityRef(.lemonsqueezy, .subscription, "77")], "the subscription, not its first order")
        #expect(found.first?.trigger == .webhook("dedup-1", receivedAt: Self.receivedAt))
        let invoice =
            #"{"meta":{"event_name":"subscription_payment_success"},"data":{"type":"subscription-invoices","id":"5","attributes":{"subscription_id":77}}}"#
        #expect(requests(try webhook(.lemonsqueezy, invoice))?.map(\.target) == [EntityRef(.lemonsqueezy, .subscription, "77")])
    }

    @Test func aLemonSqueezyOrderEventFetchesTheOrder() throws {
        let order = #"{"meta":{"event_name":"order_created"},"data":{"type":"orders","id":"31","attributes":{"customer_id":4,"identifier":"0a1b"}}}"#
        #expect(requests(try webhook(.lemonsqueezy, order))?.map(\.target) == [EntityRef(.lemonsqueezy, .order, "31")])
    }

    @Test func paystackEventsFetchTheSubscriptionAndTheTransactionTheyName() throws {
        let charge = #"{"event":"charge.success","data":{"id":1,"reference":"ref-9","customer":{"customer_code":"CUS_1"},"plan":{}}}"#
        let found = try #require(requests(try webhook(.paystack, charge)))
        #expect(found.map(\.target) == [EntityRef(.paystack, .transaction, "ref-9")])
        #expect(found.first?.customerID == "CUS_1")
        let invoice =
            #"{"event":"invoice.update","data":{"invoice_code":"INV_1","subscription":{"subscription_code":"SUB_1"},"transaction":{"reference":"ref-10"},"customer":{"customer_code":"CUS_1"}}}"#
        #expect(
            requests(try webhook(.paystack, invoice))?.map(\.target) == [
                EntityRef(.paystack, .subscription, "SUB_1"), EntityRef(.paystack, .transaction, "ref-10"),
            ])
        let refund = #"{"event":"refund.processed","data":{"transaction_reference":"ref-11","customer":{"email":"a@example.com"}}}"#
        #expect(requests(try webhook(.paystack, refund))?.map(\.target) == [EntityRef(.paystack, .transaction, "ref-11")])
    }

    @Test func aCancelOrResumeCommandFetchesAfterTheDelayAndAClaimFetchesNothing() throws {
        var command = SubscriptionCommand(
            commandID: "c-1", kind: .resumeRequested, provider: .paystack, subscriptionID: "SUB_2",
            appUserID: "u", requestedAt: Self.receivedAt)
        let record = KafkaConsumerRecord(topic: Topics.commands, partition: 0, offset: 0, key: nil, value: try RecordCoding.encode(command))
        let found = try #require(requests(record))
        #expect(found.map(\.target) == [EntityRef(.paystack, .subscription, "SUB_2")])
        #expect(found.first?.trigger.label == "command:c-1")
        #expect(found.first?.trigger.notBefore == Self.receivedAt.addingTimeInterval(5))
        command.kind = .claimByEmail
        let claim = KafkaConsumerRecord(topic: Topics.commands, partition: 0, offset: 1, key: nil, value: try RecordCoding.encode(command))
        guard case .ignored = ReconcileRecordDecoder.decode(claim, commandDelay: .seconds(5)) else { Issue.record("a claim is ignored"); return }
    }

    @Test func aRefundOfASubscriptionFetchesItAfterTheDelayAndAnOrdersIsLeftToItsWebhook() throws {
        var command = SubscriptionCommand(
            commandID: "f-1", kind: .refundRequested, provider: .stripe, subscriptionID: "sub_1", appUserID: "u", requestedAt: Self.receivedAt)
        command.refund = RefundAudit(requestedBy: "key1", paymentID: "in_1", amount: 500, outcome: .accepted, providerRefundID: "re_1")
        let record = KafkaConsumerRecord(topic: Topics.commands, partition: 0, offset: 0, key: nil, value: try RecordCoding.encode(command))
        let found = try #require(requests(record))
        #expect(found.map(\.target) == [EntityRef(.stripe, .subscription, "sub_1")])
        #expect(found.first?.trigger.notBefore == Self.receivedAt.addingTimeInterval(5))
        command.purchaseType = .order
        let order = KafkaConsumerRecord(topic: Topics.commands, partition: 0, offset: 1, key: nil, value: try RecordCoding.encode(command))
        guard case .ignored = ReconcileRecordDecoder.decode(order, commandDelay: .seconds(5)) else {
            Issue.record("an order's refund is its webhook's to tell"); return
        }
    }

    @Test func aRefreshCommandFetchesTheSubscriptionAtOnce() throws {
        var command = SubscriptionCommand(
            commandID: "r-1", kind: .refreshRequested, provider: .lemonsqueezy, subscriptionID: "42", appUserID: "u", requestedAt: Self.receivedAt)
        let record = KafkaConsumerRecord(
            topic: Topics.commands, partition: 0, offset: 0, key: Array(command.key.utf8), value: try RecordCoding.encode(command))
        let found = try #require(requests(record))
        #expect(found.map(\.target) == [EntityRef(.lemonsqueezy, .subscription, "42")])
        let trigger = try #require(found.first?.trigger)
        #expect(trigger.kind == .command && trigger.label == "command:r-1" && trigger.receivedAt == Self.receivedAt)
        #expect(trigger.notBefore == Self.receivedAt, "no command delay: nothing changed at the provider")

        command.purchaseType = .order
        let order = KafkaConsumerRecord(topic: Topics.commands, partition: 0, offset: 1, key: nil, value: try RecordCoding.encode(command))
        guard case .ignored = ReconcileRecordDecoder.decode(order, commandDelay: .seconds(5)) else {
            Issue.record("only subscriptions are refreshed"); return
        }
    }

    @Test func unreadableRecordsAreSkipped() throws {
        let garbage = KafkaConsumerRecord(topic: Topics.webhooks, partition: 0, offset: 0, key: nil, value: Array("nope".utf8))
        guard case .unreadable = ReconcileRecordDecoder.decode(garbage, commandDelay: .zero) else { Issue.record("garbage is unreadable"); return }
        guard case .unreadable = ReconcileRecordDecoder.decode(try webhook(.paystack, "{}"), commandDelay: .zero) else {
            Issue.record("a payload without event is unreadable"); return
        }
    }
}
