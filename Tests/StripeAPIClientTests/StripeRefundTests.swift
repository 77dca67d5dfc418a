import BillingModel
import Foundation
import HTTPClient
import JSONCodec
import Providers
import SandboxKit
import SandboxServer
import Testing

/// ``StripeClient/refund(_:)``: what it sends (over a fake transport) and
/// what Stripe's sandbox answers and sends afterwards.
@Suite("Stripe refunds")
struct StripeRefundTests {
    static let refund = #"{"id":"re_1","object":"refund","amount":500,"currency":"usd","status":"succeeded","payment_intent":"pi_1"}"#

    func request(_ paymentID: String, amount: Int64? = 500, key: String = "abc123") -> RefundRequest {
        RefundRequest(purchaseType: .order, purchaseID: paymentID, paymentID: paymentID, amount: amount, idempotencyKey: key)
    }

    @Test func aPaymentIntentIsRefundedUnderTheRequestsOwnKey() async throws {
        let (client, transport) = StripeClientTests().client { _ throws(ProviderError) in Self.refund }
        let answer = try await client.refund(request("pi_1"))
        #expect(answer == ProviderRefund(provider: .stripe, id: "re_1", status: "succeeded", amount: 500, currency: "usd"))
        let sent = try #require(transport.requests.first)
        #expect(sent.method == .post && sent.path == "/v1/refunds")
        #expect(StripeClientTests().form(sent) == ["payment_intent": "pi_1", "amount": "500"])
        #expect(sent.idempotencyKey == "storefront-refund-abc123")
        // The same request, asked again, carries the same key: Stripe refunds once.
        _ = try await client.refund(request("pi_1"))
        #expect(transport.requests.last?.idempotencyKey == sent.idempotencyKey)
    }

    @Test func aChargeIsRefundedAsAChargeAndAFullRefundSendsNoAmount() async throws {
        let (client, transport) = StripeClientTests().client { _ throws(ProviderError) in Self.refund }
        _ = try await client.refund(request("ch_1", amount: nil))
        #expect(StripeClientTests().form(try #require(transport.requests.first)) == ["charge": "ch_1"])
    }

    @Test func anInvoiceIsRefundedThroughThePaymentThatPaidIt() async throws {
        let (client, transport) = StripeClientTests().client { request throws(ProviderError) in
            if request.method == .get {
                #expect(request.path == "/v1/invoices/in_1" && request.queryValue("expand[]") == "payments")
                return
                    #"{"id":"in_1","object":"invoice","payments":{"object":"list","data":[{"status":"paid","payment":{"payment_intent":"pi_9"}}]}}"#
            }
            return Self.refund
        }
        _ = try await client.refund(request("in_1"))
        #expect(StripeClientTests().form(try #require(transport.requests.last))["payment_intent"] == "pi_9")
    }

    @Test func whatCannotBeRefundedIsRefusedBeforeAnyRequest() async throws {
        let (client, transport) = StripeClientTests().client { _ throws(ProviderError) in Self.refund }
        for id in ["cs_1", "sub_1", "pi_1/../x", ""] {
            let error = await #expect(throws: ProviderError.self) { try await client.refund(request(id)) }
            #expect(error?.kind == .validation && error?.status == nil, "\(id)")
        }
        let badKey = await #expect(throws: ProviderError.self) { try await client.refund(request("pi_1", key: "a b")) }
        #expect(badKey?.kind == .validation)
        #expect(transport.requests.isEmpty)
    }

    @Test func theSandboxRefundsInPartsSendsChargeRefundedAndRefusesMoreThanIsLeft() async throws {
        try await StripeSandbox.with { sandbox in
            let client = sandbox.client()
            let checkout = try await client.createCheckout(StripeSandboxClientTests().request("price_SbxProIcons"))
            _ = try await sandbox.call(.post, "/_sandbox/checkouts/stripe/\(checkout.providerCheckoutID)/pay", json: "{}")
            let session = try await client.checkoutSessionDocument(id: checkout.providerCheckoutID).json
            let intent = try #require(session["payment_intent"]?.string)

            let part = try await client.refund(request(intent, amount: 300, key: "k1"))
            #expect(part.amount == 300 && part.id?.hasPrefix("re_") == true && part.status == "succeeded")
            // The same key again: Stripe's replay, not a second refund.
            let replay = try await client.refund(request(intent, amount: 300, key: "k1"))
            #expect(replay.id == part.id)
            let payment = try await client.paymentIntentDocument(id: intent).json
            #expect(payment["amount"]?.int64 == 999)

            let tooMuch = await #expect(throws: ProviderError.self) { try await client.refund(request(intent, amount: 700, key: "k2")) }
            #expect(tooMuch?.kind == .validation && tooMuch?.code == "amount_too_large", "\(String(describing: tooMuch))")
            let rest = try await client.refund(request(intent, amount: nil, key: "k3"))
            #expect(rest.amount == 699)
            let again = await #expect(throws: ProviderError.self) { try await client.refund(request(intent, amount: nil, key: "k4")) }
            #expect(again?.code == "charge_already_refunded")

            await sandbox.server.app.settleDeliveries()
            let refunded = await sandbox.server.app.deliveries(provider: .stripe, event: "charge.refunded")
            #expect(refunded.count == 2, "one webhook per refund, none for the replay")
        }
    }
}
