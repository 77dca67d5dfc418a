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

    /// Opens a checkout of `product` from `storefront` with a token for `tokenID`; its answer.
    func openCheckout(
        _ stack: LiveStack, _ buyer: PurchaseFlow, _ product: (productID: String, variantID: String), storefront: String, tokenID: String
    ) async throws -> NSDictionary {
        let body = #"""
            {"variantId":"\#(product.variantID)","productId":"\#(product.productID)","storefront":"\#(storefront)",\#
            "externalPurchaseToken":"\#(Self.externalPurchaseToken(id: tokenID))"}
            """#
        let opened = try await stack.request(.post, stack.gateway + "/api/create-checkout", token: buyer.token, json: body)
        #expect(opened.status == 200, "\(opened.bodyString)")
        return try object(opened)
    }

    @Test func aPurchaseThroughATokenAndItsRefundAreReportedToAppleOnce() async throws {
        let stack = try self.stack
        let buyer = try await PurchaseFlow.make(stack, provider: "stripe")
        let product = try await buyer.oneTimeProduct()
        let tokenID = "SANDBOX_e2e-report-\(buyer.subject)"
        let checkout = try await openCheckout(stack, buyer, product, storefront: "NLD", tokenID: tokenID)
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

    /// Each provider's subscription: its start, then (the sandbox renews it)
    /// its renewal, naming the start. Paystack's charges name no subscription
    /// (they are linked by card), and its lines come all the same.
    @Test(arguments: ["stripe", "lemonsqueezy", "paystack"])
    func aSubscriptionThroughATokenIsReportedAsItsStartThenItsRenewal(provider: String) async throws {
        let stack = try self.stack
        let buyer = try await PurchaseFlow.make(stack, provider: provider)
        let product = try await buyer.subscriptionProduct()
        let tokenID = "SANDBOX_e2e-subscription-\(buyer.subject)"
        let checkout = try await openCheckout(stack, buyer, product, storefront: "DEU", tokenID: tokenID)
        try await buyer.pay(checkoutURL: try #require(checkout["checkoutUrl"] as? String))

        let start = try await stack.eventually(timeout: .seconds(60), "the subscription's start reported to Apple") { () -> [String: Any]? in
            try await Self.appleReports(stack, token: tokenID).first
        }
        let line = try #require(Self.lineItem(start))
        #expect(line["productType"] as? String == "SUBSCRIPTION" && line["subscriptionEvent"] as? String == "SUBSCRIPTION_START")
        #expect((line["subscriptionDaysOfPaidService"] as? Int ?? 0) >= 28 && line["taxCountry"] as? String == "DEU")
        try await Task.sleep(for: .seconds(3))
        #expect(try await Self.appleReports(stack, token: tokenID).count == 1)

        let (_, subscribed) = try await buyer.waitUntil("the subscription projected") { _, raw in raw["subscription_code"] is String }
        try await buyer.sandbox("renew", subscription: try #require(subscribed["subscription_code"] as? String))
        let reports = try await stack.eventually(timeout: .seconds(60), "the renewal reported to Apple") { () -> [[String: Any]]? in
            let reports = try await Self.appleReports(stack, token: tokenID)
            return reports.count >= 2 ? reports : nil
        }
        #expect(reports.count == 2, "one start, one renewal: \(reports)")
        let renewal = try #require(Self.lineItem(reports[1]))
        #expect(renewal["subscriptionEvent"] as? String == "RENEWAL" && renewal["eventType"] as? String == "BUY", "\(reports)")
        #expect(renewal["referenceLineItemId"] as? String == line["lineItemId"] as? String)
        #expect(renewal["lineItemId"] as? String != line["lineItemId"] as? String)
        #expect((renewal["subscriptionDaysOfPaidService"] as? Int ?? 0) > (line["subscriptionDaysOfPaidService"] as? Int ?? 0))
    }

    /// A token whose checkout was never paid is reported `NO_LINE_ITEM` once
    /// its deadline passes: the webhook-sender runs with a deadline of
    /// seconds for this test, then again with its default.
    @Test func aTokenThatBoughtNothingIsReportedAsNoLineItem() async throws {
        let stack = try self.stack
        let buyer = try await PurchaseFlow.make(stack, provider: "stripe")
        let product = try await buyer.oneTimeProduct()
        let tokenID = "SANDBOX_e2e-nothing-\(buyer.subject)"
        _ = try await openCheckout(stack, buyer, product, storefront: "FRA", tokenID: tokenID)
        // Within the default deadline (7d) nothing goes out for it.
        try await Task.sleep(for: .seconds(3))
        #expect(try await Self.appleReports(stack, token: tokenID).isEmpty)

        try await ScriptRunner.runScript(
            "stack.sh", ["restart-webhook-sender", stack.state], environment: ["APP_STORE_REPORTS_NO_PURCHASE_AFTER": "2s"],
            outputFile: stack.state + "/restart-sender-deadline.out")
        var reported: [String: Any]?, failure: (any Error)?
        do {
            reported = try await stack.eventually(timeout: .seconds(60), "the token reported as NO_LINE_ITEM") { () -> [String: Any]? in
                try await Self.appleReports(stack, token: tokenID).first
            }
        } catch {
            failure = error
        }
        // Back to the default deadline, whatever happened, for the suite's later tests.
        try await ScriptRunner.runScript("stack.sh", ["restart-webhook-sender", stack.state], outputFile: stack.state + "/restart-sender.out")
        if let failure { throw failure }
        let report = try #require(reported)
        #expect(report["status"] as? String == "NO_LINE_ITEM" && (report["lineItems"] as? [Any])?.isEmpty ?? true, "\(report)")
        #expect(try await Self.appleReports(stack, token: tokenID).count == 1)
    }
}
