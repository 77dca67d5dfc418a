import BillingModel
import Foundation
import HTTPClient
import Providers
import Testing

/// `changePlan` on Stripe: the subscription's item is read, then updated to
/// the new price with the `proration_behavior` the proration asks for.
extension StripeClientTests {
    @Test func aPlanChangeUpdatesTheItemsPriceWithTheProrationAsked() async throws {
        let (client, transport) = client { request throws(ProviderError) in
            guard request.path == "/v1/subscriptions/sub_1" else { throw FakeStripeTransport.missing(request) }
            guard request.method == .post else { return Self.subscription("sub_1") }
            return Self.subscription("sub_1").replacingOccurrences(of: #""id":"price_M""#, with: #""id":"price_Y""#)
        }
        #expect(client.planChangeTimings == [.now])
        let changed = try await client.changePlan(subscriptionID: "sub_1", PlanChange(variantID: "price_Y", effective: .now, proration: .prorate))
        #expect(changed.variantID == "price_Y" && changed.productID == "prod_P")
        _ = try await client.changePlan(subscriptionID: "sub_1", PlanChange(variantID: "price_Y", effective: .now, proration: .none))

        let requests = transport.requests
        #expect(requests.map(\.method) == [.get, .post, .get, .post])
        #expect(requests.allSatisfy { $0.operation == "changePlan" })
        #expect(form(requests[1]) == ["items[0][id]": "si_1", "items[0][price]": "price_Y", "proration_behavior": "always_invoice"])
        #expect(form(requests[3])["proration_behavior"] == "none")
        let keys = requests.compactMap(\.idempotencyKey)
        #expect(keys.count == 2 && Set(keys).count == 2, "each change is its own intent; its retries share its key")
    }

    @Test func aScheduledOrMalformedPlanChangeIsRefusedBeforeAnyCall() async throws {
        let (client, transport) = client { request throws(ProviderError) in throw FakeStripeTransport.missing(request) }
        await #expect(throws: ProviderError.self) {
            try await client.changePlan(subscriptionID: "sub_1", PlanChange(variantID: "price_Y", effective: .periodEnd, proration: .prorate))
        }
        await #expect(throws: ProviderError.self) {
            try await client.changePlan(subscriptionID: "sub_1", PlanChange(variantID: "price_Y/../x", effective: .now, proration: .prorate))
        }
        #expect(transport.requests.isEmpty)
    }
}
