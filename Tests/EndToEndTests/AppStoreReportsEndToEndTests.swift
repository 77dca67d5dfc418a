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
        // Apple's next answer is a 500: the purchase's line is sent twice, with one request identifier.
        let fault = try await stack.request(
            .post, stack.sandbox + "/_sandbox/apple/external-purchase/faults", json: #"{"answer_next":[500]}"#)
        #expect(fault.status == 200, "\(fault.bodyString)")
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

        // Each line once, also across a restart of the webhook-sender: the sender's table says both were accepted.
        try await ScriptRunner.runScript("stack.sh", ["restart-webhook-sender", stack.state], outputFile: stack.state + "/restart-sender.out")
        try await Task.sleep(for: .seconds(3))
        #expect(try await Self.appleReports(stack, token: tokenID).count == 2)
        let lines = try await stack.withDatabase { pool in
            try await pool.query(
                """
                SELECT request_identifier::text, state, attempts FROM app_store_report_lines
                WHERE external_purchase_id = \(tokenID) ORDER BY line_key
                """
            ).map { try $0.decode((String, String, Int32).self) }
        }
        #expect(lines.map(\.1) == ["accepted", "accepted"])
        #expect(lines.first?.2 == 2, "the purchase's line: the 500, then its acceptance")
        // Apple saw the purchase's request identifier twice (500, 200) and the refund's once, and no other of this token.
        let listed = try await stack.request(.get, stack.sandbox + "/_sandbox/apple/external-purchase/reports")
        let attempts = (try JSONSerialization.jsonObject(with: Data(listed.body)) as? [String: Any])?["attempts"] as? [[String: Any]] ?? []
        func statuses(_ request: String) -> [Int] {
            attempts.filter { $0["request_identifier"] as? String == request }.compactMap { $0["status"] as? Int }
        }
        #expect(lines.count == 2 && statuses(lines[0].0) == [500, 200] && statuses(lines[1].0) == [200])
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
