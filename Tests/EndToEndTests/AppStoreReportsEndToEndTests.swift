import Foundation
import HTTPClient
import Postgres
import TestSupport
import Testing

/// The reports to Apple on the contract suite's stack, whose webhook-sender
/// reports to the sandbox's emulated External Purchase Server API with the
/// stack's own App Store Connect key: a purchase made through a checkout
/// that carried a token becomes a line at Apple, and its refund another
/// that names it.
extension ContractTests {
    /// The reports the sandbox's Apple took for `token`, oldest first.
    static func appleReports(_ stack: LiveStack, token: String) async throws -> [[String: Any]] {
        let listed = try await stack.request(.get, stack.sandbox + "/_sandbox/apple/external-purchase/reports")
        let reports = (try JSONSerialization.jsonObject(with: Data(listed.body)) as? [String: Any])?["reports"] as? [[String: Any]] ?? []
        return reports.compactMap { $0["report"] as? [String: Any] }.filter { $0["externalPurchaseId"] as? String == token }
    }

    static func lineItem(_ report: [String: Any]) -> [String: Any]? { (report["lineItems"] as? [[String: Any]])?.first }

    @Test func aPurchaseThroughATokenAndItsRefundAreReportedToAppleOnce() async throws {
        let stack = try self.stack
        let buyer = try await PurchaseFlow.make(stack, provider: "stripe")
        let product = try await buyer.oneTimeProduct()
        let tokenID = "SANDBOX_e2e-report-\(buyer.subject)"
        let body = #"""
            {"variantId":"\#(product.variantID)","productId":"\#(product.productID)","storefront":"NLD",\#
            "externalPurchaseToken":"\#(Self.externalPurchaseToken(id: tokenID))"}
            """#
        let opened = try await stack.request(.post, stack.gateway + "/api/create-checkout", token: buyer.token, json: body)
        #expect(opened.status == 200, "\(opened.bodyString)")
        let checkout = try object(opened)
        let checkoutID = try #require(checkout["checkoutId"] as? String)
        try await buyer.pay(checkoutURL: try #require(checkout["checkoutUrl"] as? String))

        // The purchase's line reaches Apple within a minute of the payment.
        let purchase = try await stack.eventually(timeout: .seconds(60), "the purchase reported to Apple") { () -> [String: Any]? in
            try await Self.appleReports(stack, token: tokenID).first
        }
        let line = try #require(Self.lineItem(purchase))
        #expect(purchase["status"] as? String == "LINE_ITEM" && purchase["tokenType"] as? String == "ACQUISITION")
        #expect(line["eventType"] as? String == "BUY" && line["productType"] as? String == "ONE_TIME_BUY" && line["taxCountry"] as? String == "NLD")
        let charged = try #require(line["amountTaxInclusive"] as? Int)
        #expect(charged > 0 && charged % 10 == 0, "cents become milli-units")
        let orderLine = try #require(line["lineItemId"] as? String)

        // The refund, asked through the server API, follows with a line naming the purchase's.
        let orderID = try #require(
            try await stack.withDatabase { pool in
                try await pool.query("SELECT order_id FROM orders WHERE checkout_id = \(checkoutID)").first?.decode(String.self)
            })
        let support = try await refundKey(stack, "purchases:refund")
        let refund = #"{"purchase":{"provider":"stripe","type":"order","id":"\#(orderID)"}}"#
        let refunded = try await stack.request(
            .post, stack.gateway + "/api/users/\(buyer.subject)/refunds", json: refund,
            headers: [("X-API-Key", support.key), ("Idempotency-Key", "e2e-report-refund-\(buyer.subject)")])
        #expect(refunded.status == 200, "\(refunded.bodyString)")
        let reports = try await stack.eventually(timeout: .seconds(60), "the refund reported to Apple") { () -> [[String: Any]]? in
            let reports = try await Self.appleReports(stack, token: tokenID)
            return reports.count >= 2 ? reports : nil
        }
        let refundLine = try #require(Self.lineItem(reports[1]))
        #expect(refundLine["eventType"] as? String == "REFUND" && refundLine["referenceLineItemId"] as? String == orderLine)
        #expect(refundLine["amountTaxInclusive"] as? Int == charged && refundLine["netAmountTaxExclusive"] as? Int == 0)

        // Each line once: a few more rounds send nothing more, and the sender's table says both were accepted.
        try await Task.sleep(for: .seconds(3))
        #expect(try await Self.appleReports(stack, token: tokenID).count == 2)
        let states = try await stack.withDatabase { pool in
            try await pool.query("SELECT state FROM app_store_report_lines WHERE external_purchase_id = \(tokenID) ORDER BY line_key").map {
                try $0.decode(String.self)
            }
        }
        #expect(states == ["accepted", "accepted"])
    }

    @Test(arguments: ["stripe", "lemonsqueezy"])
    func aSubscriptionThroughATokenIsReportedAsItsStart(provider: String) async throws {
        let stack = try self.stack
        let buyer = try await PurchaseFlow.make(stack, provider: provider)
        let product = try await buyer.subscriptionProduct()
        let tokenID = "SANDBOX_e2e-subscription-\(buyer.subject)"
        let body = #"""
            {"variantId":"\#(product.variantID)","productId":"\#(product.productID)","storefront":"DEU",\#
            "externalPurchaseToken":"\#(Self.externalPurchaseToken(id: tokenID))"}
            """#
        let opened = try await stack.request(.post, stack.gateway + "/api/create-checkout", token: buyer.token, json: body)
        #expect(opened.status == 200, "\(opened.bodyString)")
        try await buyer.pay(checkoutURL: try #require(try object(opened)["checkoutUrl"] as? String))

        let start = try await stack.eventually(timeout: .seconds(60), "the subscription's start reported to Apple") { () -> [String: Any]? in
            try await Self.appleReports(stack, token: tokenID).first
        }
        let line = try #require(Self.lineItem(start))
        #expect(line["productType"] as? String == "SUBSCRIPTION" && line["subscriptionEvent"] as? String == "SUBSCRIPTION_START")
        #expect((line["subscriptionDaysOfPaidService"] as? Int ?? 0) >= 28 && line["taxCountry"] as? String == "DEU")
        try await Task.sleep(for: .seconds(3))
        #expect(try await Self.appleReports(stack, token: tokenID).count == 1)
    }
}
