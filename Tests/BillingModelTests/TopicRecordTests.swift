import Foundation
import Testing
@testable import BillingModel

@Suite struct TopicRecordTests {
    let now = Date(timeIntervalSince1970: 1_764_500_000.123)

    /// The envelope's fields written by the records' JSON encoder.
    static func encoderBytes(_ envelope: WebhookEnvelope) throws -> [UInt8] {
        try RecordCoding.encode([
            "eventName": envelope.eventName, "id": envelope.id, "payload": Data(envelope.payload.bytes).base64EncodedString(),
            "payloadEncoding": "base64", "provider": envelope.provider.rawValue, "receivedAt": Timestamp.format(envelope.receivedAt),
        ])
    }

    /// The receiver's hand-written envelope is the encoder's, byte for byte.
    @Test(arguments: ["lemonsqueezy:abc", "paystack:sha256:0f", "we\"ird\\/id\u{1}\n\t€😀", ""])
    func handWrittenEnvelopeMatchesTheEncoder(id: String) throws {
        let payload = Array(#"{"a":"\/x"}"#.utf8) + [0x00, 0xFF]
        for received in [now, Date(timeIntervalSince1970: 1_800_000_000.123_456)] {
            let envelope = WebhookEnvelope(id: id, provider: .paystack, eventName: "charge.success \u{7f}\"", receivedAt: received, payload: payload)
            #expect(envelope.encodedRecord() == (try Self.encoderBytes(envelope)))
            let decoded = try RecordCoding.decode(WebhookEnvelope.self, from: envelope.encodedRecord())
            #expect(decoded.id == id && decoded.payload == envelope.payload && decoded.eventName == envelope.eventName)
        }
    }

    @Test func envelopeKeepsPayloadBytesExactly() throws {
        // Escapes that a JSON re-serialisation would change.
        let payload = Array(#"{"meta":{"event_name":"order_created"},"x":"https:\/\/a\/b \u20ac","n":1.0}"#.utf8) + [0x0A]
        let envelope = WebhookEnvelope(id: "lemonsqueezy:abc", provider: .lemonsqueezy, eventName: "order_created", receivedAt: now, payload: payload)
        let bytes = RecordCoding.encode(envelope)
        let object = try #require(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(object["payloadEncoding"] as? String == "base64")
        #expect(object["receivedAt"] as? String == "2025-11-30T10:53:20.123Z")
        #expect(object["eventName"] as? String == "order_created")
        let decoded = try RecordCoding.decode(WebhookEnvelope.self, from: bytes)
        #expect(decoded.payload.bytes == payload)
        #expect(decoded == envelope)
        // Re-encoding the decoded record yields the same bytes.
        #expect(RecordCoding.encode(decoded) == bytes)
    }

    @Test func envelopeRejectsUnknownPayloadEncoding() {
        let json = #"{"id":"x","provider":"paystack","eventName":"e","receivedAt":"2025-01-01T00:00:00Z","payload":"e30=","payloadEncoding":"gzip"}"#
        #expect(throws: WebhookRecordError.self) { try RecordCoding.decode(WebhookEnvelope.self, from: Array(json.utf8)) }
    }

    @Test func checkoutCommandAndDeadLetterRoundTrip() throws {
        let checkout = CheckoutCreatedRecord(
            checkoutID: "c-1", provider: .paystack, appUserID: "user-1", email: "a@b.co",
            variantID: try #require(CatalogID("ps_PLN_x")), productID: nil, providerCheckoutID: "ref-1",
            url: "https://checkout.paystack.com/abc", createdAt: now, expiresAt: nil)
        #expect(checkout.key == "paystack:user-1")
        let checkoutJSON = try RecordCoding.encode(checkout)
        #expect(try RecordCoding.decode(CheckoutCreatedRecord.self, from: checkoutJSON) == checkout)
        #expect(String(decoding: checkoutJSON, as: UTF8.self).contains(#""variantId":"ps_PLN_x""#))
        #expect(String(decoding: checkoutJSON, as: UTF8.self).contains(#""emailVerified":false"#))

        let command = SubscriptionCommand(
            commandID: "k-1", kind: .cancelRequested, provider: .lemonsqueezy, subscriptionID: "421953", appUserID: "user-1", requestedAt: now)
        #expect(command.key == "lemonsqueezy:421953")
        #expect(try RecordCoding.decode(SubscriptionCommand.self, from: RecordCoding.encode(command)) == command)
        #expect(SubscriptionCommand.Kind(rawValue: "pause_requested") == .other("pause_requested"))
        // A refund request round-trips with its audit; a record without one (older producers) decodes with none.
        var refund = SubscriptionCommand(
            commandID: "f-1", kind: .refundRequested, provider: .paystack, subscriptionID: "SUB_1", appUserID: "u", requestedAt: command.requestedAt)
        refund.refund = RefundAudit(requestedBy: "0a1b2c3d4e5f", paymentID: "4099", amount: nil, outcome: .noAnswer, providerRefundID: nil)
        let refundBytes = try RecordCoding.encode(refund)
        #expect(try RecordCoding.decode(SubscriptionCommand.self, from: refundBytes) == refund)
        #expect(String(decoding: refundBytes, as: UTF8.self).contains(#""kind":"refund_requested""#))
        #expect(String(decoding: refundBytes, as: UTF8.self).contains(#""outcome":"no_answer""#))
        #expect(try RecordCoding.decode(SubscriptionCommand.self, from: RecordCoding.encode(command)).refund == nil)
        // A Paystack plan change names the subscription it made to take over at the period end.
        var change = SubscriptionCommand(
            commandID: "p-1", kind: .planChangeRequested, provider: .paystack, subscriptionID: "SUB_1", appUserID: "u", requestedAt: now)
        var observed = ObservedSubscription(status: "non-renewing", renewsAt: nil, endsAt: now, cancelled: true, emailToken: "t", observedAt: now)
        observed.pendingVariantID = "PLN_y"
        observed.pendingChangeAt = now
        observed.successor = ObservedSubscription.Successor(subscriptionID: "SUB_2", status: "active", startsAt: now)
        change.observed = observed
        let changeBytes = try RecordCoding.encode(change)
        #expect(try RecordCoding.decode(SubscriptionCommand.self, from: changeBytes) == change)
        #expect(String(decoding: changeBytes, as: UTF8.self).contains(#""successor":{"startsAt":"#))

        let dead = DeadLetterRecord(
            sourceTopic: Topics.webhooks, sourcePartition: 3, sourceOffset: 42, sourceKey: "paystack:unparsed",
            sourceValue: [0xFF, 0x00, 0x7B], reason: "webhook body is not valid JSON", consumer: "subscription-projector", failedAt: now)
        let back = try RecordCoding.decode(DeadLetterRecord.self, from: RecordCoding.encode(dead))
        #expect(back == dead)
        #expect(back.sourceValue.bytes == [0xFF, 0x00, 0x7B])

        // On the topic: the value untouched, the rest in a header; the older
        // whole-letter JSON value (no header) still reads.
        let metadata = try dead.wireMetadata()
        #expect(!String(decoding: metadata, as: UTF8.self).contains("/wB7"), "the header does not carry the value")
        #expect(DeadLetterRecord.fromWire(metadata: metadata, value: [0xFF, 0x00, 0x7B]) == dead)
        #expect(DeadLetterRecord.fromWire(metadata: nil, value: try RecordCoding.encode(dead)) == dead)
        #expect(DeadLetterRecord.fromWire(metadata: nil, value: [0xFF, 0x00, 0x7B]) == nil, "a record that is no letter")
        #expect(DeadLetterRecord.fromWire(metadata: Array("{}".utf8), value: []) == nil)
    }

    /// `emailVerified`: written always, read back as written, false when absent (older records).
    @Test func checkoutEmailVerifiedRoundTripsAndDefaultsToFalse() throws {
        var checkout = CheckoutCreatedRecord(
            checkoutID: "c-2", provider: .lemonsqueezy, appUserID: "user-2", email: "ada@example.com", emailVerified: true,
            variantID: try #require(CatalogID("ls_472301")), productID: CatalogID("ls_310456"), providerCheckoutID: "lsc-2",
            url: "https://example.test/checkout", createdAt: now, expiresAt: now.addingTimeInterval(3600))
        let verified = try RecordCoding.encode(checkout)
        #expect(String(decoding: verified, as: UTF8.self).contains(#""emailVerified":true"#))
        #expect(try RecordCoding.decode(CheckoutCreatedRecord.self, from: verified) == checkout)
        checkout.emailVerified = false
        #expect(try RecordCoding.decode(CheckoutCreatedRecord.self, from: RecordCoding.encode(checkout)).emailVerified == false)

        let older =
            #"{"checkoutId":"c-3","provider":"paystack","appUserId":"u","email":"typed@example.com","variantId":"ps_PLN_x","productId":null,"providerCheckoutId":"ref-3","url":"https://checkout.paystack.com/x","createdAt":"2025-11-30T10:53:20.123Z","expiresAt":null}"#
        let decoded = try RecordCoding.decode(CheckoutCreatedRecord.self, from: Array(older.utf8))
        #expect(decoded.email == "typed@example.com" && decoded.emailVerified == false)
        #expect(throws: DecodingError.self) {
            try RecordCoding.decode(
                CheckoutCreatedRecord.self,
                from: Array(older.replacingOccurrences(of: #""expiresAt":null"#, with: #""expiresAt":null,"emailVerified":"yes""#).utf8))
        }
    }

    @Test func topicKeysAndNames() {
        #expect(
            Topics.all == [
                "storefront.webhooks.v1", "storefront.checkouts.v1", "storefront.commands.v1", "storefront.snapshots.v1", "storefront.deadletter.v1",
                "storefront.entitlements.v1", "storefront.purchase-events.v1",
            ])
        #expect(TopicKey.make(.paystack, "SUB_1") == "paystack:SUB_1")
        let parsed = TopicKey.parse("lemonsqueezy:sub_9:x")
        #expect(parsed?.provider == .lemonsqueezy && parsed?.entityID == "sub_9:x")
        #expect(TopicKey.parse("nopay:1") == nil)
    }

    @Test func billingEventKindCodesAsStrings() throws {
        for kind in BillingEventKind.known + [.unknown("transfer.success")] {
            #expect(BillingEventKind(rawValue: kind.rawValue) == kind, "\(kind)")
        }
        #expect(BillingEventKind.subscriptionCreated.rawValue == "subscriptionCreated")
        #expect(BillingEventKind(rawValue: "somethingNew") == .unknown("somethingNew"))
        #expect(Set(BillingEventKind.known.map(\.rawValue)).count == BillingEventKind.known.count)
    }
}

@Suite struct BillingEventRecordTests {
    /// Every field set, with text that needs escaping, so the hand-written
    /// encoder must match JSONEncoder key for key and byte for byte.
    static func everyField() -> BillingEvent {
        var e = BillingEvent(
            kind: .subscriptionUpdated, provider: .lemonsqueezy, providerEventName: "subscription_updated",
            entityKey: "lemonsqueezy:sub_1")
        let at = Date(timeIntervalSince1970: 1_796_125_814.5)
        e.customerID = "c\"1"; e.appUserID = "user/1"; e.checkoutID = "co_1"; e.customerEmail = "ü@example.com"
        e.customData = ["z": "last", "Z": "upper", "storefront_user_id": "u\n1", "a": ""]
        e.subscriptionID = "1"; e.orderID = "2"; e.invoiceID = "3"; e.transactionReference = "ref"; e.productID = "4"
        e.variantID = "5"; e.planName = "Pro \\ monthly"; e.status = "active"; e.cancelled = false; e.amount = -999
        e.currency = "USD"; e.createdAt = at; e.updatedAt = at.addingTimeInterval(1); e.renewsAt = at.addingTimeInterval(2)
        e.endsAt = at.addingTimeInterval(3); e.trialEndsAt = at.addingTimeInterval(4); e.nextPaymentDate = at.addingTimeInterval(5)
        e.paidAt = at.addingTimeInterval(6); e.orderingTimestamp = at.addingTimeInterval(7); e.emailToken = "tok"
        e.cardBrand = "visa"; e.cardLastFour = "4242"; e.customerPortalURL = "https://x/portal?a=1&b=2"
        e.updatePaymentMethodURL = "https://x/update"; e.testMode = true; e.authorizationCode = "AUTH_1"; e.pauseMode = "free"
        e.pauseResumesAt = at.addingTimeInterval(8); e.refundedAmount = 250; e.disputeResolution = "merchant-accepted"
        e.pendingVariantID = "price_Y"; e.pendingChangeAt = at.addingTimeInterval(9); e.startsAt = at.addingTimeInterval(10)
        e.replacesSubscriptionID = "SUB_0"
        e.recurringPrice = RecurringPrice(amount: 4_800_000, currency: "ngn", interval: BillingInterval(unit: .month, count: 3))
        return e
    }

    @Test func theTestEventReallySetsEveryField() {
        for child in Mirror(reflecting: Self.everyField()).children {
            let value = Mirror(reflecting: child.value)
            #expect(!(value.displayStyle == .optional && value.children.isEmpty), "\(child.label ?? "?") is nil")
        }
    }

    @Test func handWrittenBytesAreRecordCodingsBytes() throws {
        var sparse = BillingEvent(kind: .orderCreated, provider: .paystack, providerEventName: "charge.success", entityKey: "paystack:order_1")
        sparse.amount = 500
        for event in [Self.everyField(), sparse] {
            #expect(String(decoding: event.encodedRecord(), as: UTF8.self) == String(decoding: try RecordCoding.encode(event), as: UTF8.self))
            #expect(try RecordCoding.decode(BillingEvent.self, from: event.encodedRecord()) == event)
        }
    }
}
