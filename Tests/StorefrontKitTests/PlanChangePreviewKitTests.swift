import Foundation
import Testing

@testable import StorefrontKit

/// `previewPlanChange(to:effective:proration:)`: the query it sends, the
/// answer read (known and unknown amounts), and a refusal as the change's.
@Suite struct PlanChangePreviewKitTests {
    static let exact = #"""
        {"success":true,"provider":"stripe","subscription_code":"sub_1","variantId":"st_price_Y","effective":"now","proration":"prorate",
         "currency":"USD","due_now":{"amount":4517},"next":{"amount":4999,"at":"2027-12-07T14:00:00.000Z"},"exact":true}
        """#
    static let unknown = #"""
        {"success":true,"provider":"lemonsqueezy","subscription_code":"7","variantId":"ls_3","effective":"now","proration":"prorate",
         "currency":"USD","due_now":null,"next":{"amount":4999,"at":null},"exact":false}
        """#

    @Test func thePreviewAsksWithTheChangesWordsAndReadsTheAmounts() async throws {
        let stub = StubServer { request, _ in .json(200, request.url.query?.contains("ls_3") == true ? Self.unknown : Self.exact) }
        defer { stub.unregister() }
        let client = stub.client()
        let preview = try await client.previewPlanChange(to: "st_price_Y", subscriptionCode: "sub 1&x")
        #expect(preview.provider == .stripe && preview.subscriptionCode == "sub_1" && preview.variantID == "st_price_Y")
        #expect(preview.dueNow == 4517 && preview.currency == "USD" && preview.isExact)
        #expect(preview.next?.amount == 4999 && preview.next?.at.map(WireDate.format) == "2027-12-07T14:00:00.000Z")
        let sent = try #require(stub.requests.first)
        #expect(sent.method == "GET" && sent.url.path == "/api/subscription/change/preview")
        let query = try #require(URLComponents(url: sent.url, resolvingAgainstBaseURL: false)?.queryItems)
        #expect(query.map(\.name) == ["variantId", "effective", "proration", "subscription_code"])
        #expect(query.map { $0.value ?? "" } == ["st_price_Y", "now", "prorate", "sub 1&x"], "the code is escaped, not split")

        let estimate = try await client.previewPlanChange(to: "ls_3", effective: .now, proration: .prorate)
        #expect(estimate.dueNow == nil && estimate.next?.amount == 4999 && estimate.next?.at == nil && !estimate.isExact)
    }

    @Test func aRefusedChangeIsRefusedInThePreview() async {
        let stub = StubServer { _, _ in
            .json(422, #"{"success":false,"error":"Lemon Squeezy cannot change plans effective period_end","code":"plan_change_timing_unsupported"}"#)
        }
        defer { stub.unregister() }
        await #expect(throws: StorefrontError.server(status: 422, message: "Lemon Squeezy cannot change plans effective period_end")) {
            try await stub.client().previewPlanChange(to: "ls_3", effective: .periodEnd)
        }
        #expect(stub.requests.count == 1, "a refusal is not retried")
    }
}
