import Foundation
import HTTPClient
import Postgres
import TestSupport
import Testing

/// What the plan-change suite reads beside the change: its preview, what
/// Stripe then charged, and `storefront report` over the stack's database.
extension PlanChangeEndToEndTests {
    /// `GET /api/subscription/change/preview` with `query`, through the gateway.
    func preview(_ flow: PurchaseFlow, _ query: String) async throws -> HTTPClientResponse {
        try await flow.stack.request(.get, flow.stack.gateway + "/api/subscription/change/preview?" + query, token: flow.token)
    }

    /// The amount of the invoice Stripe's sandbox last charged for subscription `code`.
    func stripeLatestInvoiceAmount(_ flow: PurchaseFlow, subscription code: String) async throws -> Int {
        let auth = [("Authorization", "Bearer sk_test_sandbox_stripe")]
        let api = flow.stack.sandbox + "/stripe/v1"
        let subscription = try await flow.stack.request(.get, api + "/subscriptions/\(code)", headers: auth)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(subscription.body)) as? [String: Any])
        let invoiceID = try #require(object["latest_invoice"] as? String)
        let invoice = try await flow.stack.request(.get, api + "/invoices/\(invoiceID)", headers: auth)
        let invoiceObject = try #require(try JSONSerialization.jsonObject(with: Data(invoice.body)) as? [String: Any])
        return try #require((invoiceObject["amount_paid"] as? NSNumber)?.intValue)
    }

    /// `storefront report --format json` as an operator runs it, over the
    /// days around now, priced by the gateway's product list: `provider`'s
    /// figures in `currency`, summed over the report's rows.
    func reportFigures(_ provider: String, currency: String = "USD") async throws -> [String: Int64] {
        let stack = try self.stack
        let run = stack.state + "/report-\(UUID().uuidString.prefix(6))"
        let products = try await stack.request(.get, stack.gateway + "/api/products")
        try Data(products.body).write(to: URL(fileURLWithPath: run + "-products.json"))
        let iso = ISO8601DateFormatter()
        let arguments = [
            "report", "--format", "json", "--from", iso.string(from: Date().addingTimeInterval(-2 * 86_400)),
            "--to", iso.string(from: Date().addingTimeInterval(2 * 86_400)), "--catalog", run + "-products.json",
        ]
        try await ScriptRunner.run(
            try stack.binary("storefront"), arguments, environment: ["DATABASE_URL": stack.databaseURL, "LOG_LEVEL": "error"],
            outputFile: run + ".json")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: run + ".json"))) as? [String: Any])
        let rows = try #require(report["rows"] as? [[String: Any]]).filter {
            $0["provider"] as? String == provider && $0["currency"] as? String == currency
        }
        var sums: [String: Int64] = [:]
        for row in rows {
            for (key, value) in row { if let number = value as? NSNumber, key != "provider" { sums[key, default: 0] += number.int64Value } }
        }
        return sums
    }

    /// The catalog's price of `variantID` in minor units, as a month's.
    func monthlyPrice(ofVariant variantID: String) async throws -> Double {
        let response = try await stack.request(.get, stack.gateway + "/api/products")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let items = try #require((list["products"] as? [String: Any])?["data"] as? [[String: Any]])
        let attributes = try #require(items.first { $0["variantId"] as? String == variantID }?["attributes"] as? [String: Any])
        let price = try #require((attributes["price"] as? NSNumber)?.doubleValue)
        let months = (attributes["interval"] as? String == "year" ? 12.0 : 1.0) * Double((attributes["interval_count"] as? NSNumber)?.intValue ?? 1)
        return price / months
    }

    /// Every logged event of `subscription`, in the order the log holds
    /// them (for a failure message: what the report's history was built from).
    func revenueTrail(_ provider: String, subscription: String) async throws -> String {
        try await stack.withDatabase { pool in
            let rows = try await pool.query(
                """
                SELECT e.event_name, e.dedup_key, e.ordering_ts::text, COALESCE(e.event->>'kind', '-'),
                    COALESCE(e.event->>'variantId', '-'), COALESCE(e.event->>'status', '-')
                FROM billing_events e WHERE e.provider = \(provider) AND e.subscription_id = \(subscription)
                ORDER BY e.ordering_ts, e.dedup_key
                """)
            return try rows.map { row in
                let (name, key, at, kind, variant, status) = try row.decode((String, String, String?, String, String, String).self)
                return "\(at ?? "-") \(kind) \(name) \(variant) \(status) [\(key.prefix(40))]"
            }.joined(separator: "\n")
        }
    }

    /// The report's figures once its contraction moved from `report`'s; a
    /// timeout records `subscription`'s logged events first.
    func reportAfterContraction(_ provider: String, from report: [String: Int64], subscription: String) async throws -> [String: Int64] {
        do {
            return try await stack.eventually("the change in the report") { () -> [String: Int64]? in
                let now = try await reportFigures(provider)
                return now["contraction_mrr", default: 0] != report["contraction_mrr", default: 0] ? now : nil
            }
        } catch {
            Issue.record(
                """
                the report never moved from \(report) (now \(try await reportFigures(provider))); the subscription's log:
                \(try await revenueTrail(provider, subscription: subscription))
                """)
            throw error
        }
    }
}
