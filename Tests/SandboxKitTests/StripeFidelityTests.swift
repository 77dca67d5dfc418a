import Foundation
import Testing
@testable import SandboxKit

/// The emulated Stripe's objects carry the fields Stripe's API reference
/// (its OpenAPI description) documents, with the documented JSON types and
/// enumerations, for the API version the sandbox names.
@Suite("Stripe fidelity")
struct StripeFidelityTests {
    /// A documented JSON type; `.optional` adds `null`.
    indirect enum Kind: Sendable, CustomStringConvertible {
        case string, int, bool, object, array, optional(Kind), literal(String), oneOf([String])

        func accepts(_ value: JSONValue) -> Bool {
            switch (self, value) {
            case (.optional, .null): true
            case (.optional(let inner), _): inner.accepts(value)
            case (.string, .string), (.int, .int), (.bool, .bool), (.object, .object), (.array, .array): true
            case (.literal(let text), .string(let given)): text == given
            case (.oneOf(let texts), .string(let given)): texts.contains(given)
            default: false
            }
        }

        var description: String {
            switch self {
            case .string: "string"
            case .int: "integer"
            case .bool: "boolean"
            case .object: "object"
            case .array: "array"
            case .optional(let inner): "\(inner)|null"
            case .literal(let text): "\"\(text)\""
            case .oneOf(let texts): texts.joined(separator: "|")
            }
        }
    }

    static let event: [String: Kind] = [
        "id": .string, "object": .literal("event"), "api_version": .optional(.string), "created": .int, "data": .object, "livemode": .bool,
        "pending_webhooks": .int, "request": .optional(.object), "type": .string,
    ]
    static let session: [String: Kind] = [
        "id": .string, "object": .literal("checkout.session"), "amount_subtotal": .optional(.int), "amount_total": .optional(.int),
        "cancel_url": .optional(.string), "client_reference_id": .optional(.string), "created": .int, "currency": .optional(.string),
        "customer": .optional(.string), "customer_details": .optional(.object), "customer_email": .optional(.string), "expires_at": .int,
        "invoice": .optional(.string), "livemode": .bool, "metadata": .optional(.object), "mode": .oneOf(["payment", "setup", "subscription"]),
        "payment_intent": .optional(.string), "payment_method_types": .array,
        "payment_status": .oneOf(["no_payment_required", "paid", "unpaid"]), "status": .optional(.oneOf(["complete", "expired", "open"])),
        "subscription": .optional(.string), "success_url": .optional(.string), "ui_mode": .optional(.string), "url": .optional(.string),
    ]
    static let subscription: [String: Kind] = [
        "id": .string, "object": .literal("subscription"), "billing_cycle_anchor": .int, "cancel_at": .optional(.int), "cancel_at_period_end": .bool,
        "canceled_at": .optional(.int), "cancellation_details": .optional(.object),
        "collection_method": .oneOf(["charge_automatically", "send_invoice"]),
        "created": .int, "currency": .string, "customer": .string, "days_until_due": .optional(.int), "discounts": .array,
        "ended_at": .optional(.int),
        "items": .object, "latest_invoice": .optional(.string), "livemode": .bool, "metadata": .object, "pause_collection": .optional(.object),
        "start_date": .int,
        "status": .oneOf(["active", "canceled", "incomplete", "incomplete_expired", "past_due", "paused", "trialing", "unpaid"]),
        "trial_end": .optional(.int), "trial_start": .optional(.int),
    ]
    static let subscriptionItem: [String: Kind] = [
        "id": .string, "object": .literal("subscription_item"), "created": .int, "current_period_end": .int, "current_period_start": .int,
        "metadata": .object, "price": .object, "quantity": .int, "subscription": .string, "tax_rates": .array,
    ]
    static let invoice: [String: Kind] = [
        "id": .string, "object": .literal("invoice"), "amount_due": .int, "amount_paid": .int, "amount_remaining": .int, "attempt_count": .int,
        "attempted": .bool, "billing_reason": .optional(.string), "collection_method": .string, "created": .int, "currency": .string,
        "customer": .string, "customer_email": .optional(.string), "lines": .object, "livemode": .bool, "metadata": .optional(.object),
        "next_payment_attempt": .optional(.int), "number": .optional(.string), "parent": .optional(.object), "period_end": .int, "period_start": .int,
        "status": .optional(.oneOf(["draft", "open", "paid", "uncollectible", "void"])), "status_transitions": .object, "subtotal": .int,
        "total": .int,
    ]
    static let charge: [String: Kind] = [
        "id": .string, "object": .literal("charge"), "amount": .int, "amount_captured": .int, "amount_refunded": .int,
        "balance_transaction": .optional(.string), "billing_details": .object, "captured": .bool, "created": .int, "currency": .string,
        "customer": .optional(.string), "disputed": .bool, "failure_code": .optional(.string), "livemode": .bool, "metadata": .object,
        "outcome": .optional(.object), "paid": .bool, "payment_intent": .optional(.string), "payment_method_details": .optional(.object),
        "refunded": .bool, "refunds": .optional(.object), "status": .oneOf(["failed", "pending", "succeeded"]),
    ]
    static let dispute: [String: Kind] = [
        "id": .string, "object": .literal("dispute"), "amount": .int, "balance_transactions": .array, "charge": .string, "created": .int,
        "currency": .string, "evidence_details": .object, "is_charge_refundable": .bool, "livemode": .bool, "metadata": .object,
        "payment_intent": .optional(.string), "reason": .string,
        "status": .oneOf([
            "lost", "needs_response", "prevented", "under_review", "warning_closed", "warning_needs_response", "warning_under_review", "won",
        ]),
    ]
    static let price: [String: Kind] = [
        "id": .string, "object": .literal("price"), "active": .bool, "billing_scheme": .oneOf(["per_unit", "tiered"]), "created": .int,
        "currency": .string, "livemode": .bool, "lookup_key": .optional(.string), "metadata": .object, "nickname": .optional(.string),
        "product": .string, "recurring": .optional(.object), "tax_behavior": .optional(.string), "type": .oneOf(["one_time", "recurring"]),
        "unit_amount": .optional(.int), "unit_amount_decimal": .optional(.string),
    ]
    static let product: [String: Kind] = [
        "id": .string, "object": .literal("product"), "active": .bool, "created": .int, "default_price": .optional(.string),
        "description": .optional(.string), "images": .array, "livemode": .bool, "marketing_features": .array, "metadata": .object, "name": .string,
        "updated": .int, "url": .optional(.string),
    ]
    static let portal: [String: Kind] = [
        "id": .string, "object": .literal("billing_portal.session"), "configuration": .string, "created": .int, "customer": .string,
        "livemode": .bool, "return_url": .optional(.string), "url": .string,
    ]
    static let customer: [String: Kind] = [
        "id": .string, "object": .literal("customer"), "created": .int, "email": .optional(.string), "livemode": .bool, "metadata": .object,
        "name": .optional(.string), "delinquent": .optional(.bool), "balance": .int, "tax_exempt": .optional(.oneOf(["exempt", "none", "reverse"])),
    ]
    static let list: [String: Kind] = ["object": .literal("list"), "data": .array, "has_more": .bool, "url": .string]

    func check(_ value: JSONValue?, _ shape: [String: Kind], _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let value, value.objectValue != nil else {
            Issue.record("\(what) is not an object", sourceLocation: sourceLocation)
            return
        }
        for (field, kind) in shape.sorted(by: { $0.key < $1.key }) {
            guard let member = value[field] else {
                Issue.record("\(what) has no \(field)", sourceLocation: sourceLocation)
                continue
            }
            #expect(kind.accepts(member), "\(what).\(field) is \(member), Stripe documents \(kind)", sourceLocation: sourceLocation)
        }
    }

    @Test func catalogObjectsAndListsHaveStripesShape() async {
        let h = Harness()
        let products = await h.stripe("GET", "/products?limit=100")
        #expect(products.status == 200)
        check(products.json, Self.list, "product list")
        for p in products.json?["data"]?.arrayValue ?? [] { check(p, Self.product, "product") }
        let prices = await h.stripe("GET", "/prices?limit=100")
        check(prices.json, Self.list, "price list")
        let all = prices.json?["data"]?.arrayValue ?? []
        #expect(all.count == 6)
        for p in all {
            check(p, Self.price, "price")
            let recurring = p["recurring"] ?? .null
            #expect(recurring.isNull == (p["type"]?.stringValue == "one_time"))
            if !recurring.isNull {
                #expect(["day", "week", "month", "year"].contains(recurring["interval"]?.stringValue ?? ""))
                #expect(recurring["interval_count"]?.intValue == 1)
            }
        }
        check(await h.stripe("GET", "/products/prod_SbxPremium").json, Self.product, "product")
    }

    @Test func everyWebhookOfALifeHasStripesShape() async {
        let h = Harness()
        guard let sub = await h.stripeSubscribe(trialDays: 7) else {
            Issue.record("no subscription")
            return
        }
        for action in ["renew", "payment_failed", "recover", "cancel", "resume", "refund", "expire"] {
            #expect(await h.control("POST", "/stripe/subscriptions/\(sub)/\(action)").status == 200, "\(action)")
        }
        guard let session = await h.stripeSession(price: "price_SbxProIcons", mode: "payment") else {
            Issue.record("no session")
            return
        }
        let paid = await h.control("POST", "/checkouts/stripe/\(session)/pay")
        let payment = paid.json?["payment_intent_id"]?.stringValue ?? ""
        #expect(await h.control("POST", "/stripe/payments/\(payment)/dispute", body: ["action": "create"]).status == 200)
        #expect(await h.control("POST", "/stripe/payments/\(payment)/dispute", body: ["action": "close", "status": "lost"]).status == 200)
        let sent = await h.delivered(after: 0)
        var types: Set<String> = []
        for delivery in sent {
            let event = delivery.json
            check(event, Self.event, "event")
            #expect(event["api_version"]?.stringValue == StripeResources.apiVersion)
            let object = event["data"]?["object"]
            let type = event["type"]?.stringValue ?? ""
            types.insert(type)
            switch object?["object"]?.stringValue {
            case "checkout.session": check(object, Self.session, type)
            case "subscription":
                check(object, Self.subscription, type)
                #expect(object?["current_period_end"] == nil, "API \(StripeResources.apiVersion) has the period on the items")
                check(object?["items"]?["data"]?[0], Self.subscriptionItem, "\(type) item")
            case "invoice":
                check(object, Self.invoice, type)
                #expect(object?["parent"]?["subscription_details"]?["subscription"]?.stringValue == sub)
            case "charge":
                check(object, Self.charge, type)
                #expect(object?["invoice"] == nil, "API \(StripeResources.apiVersion) has no invoice on charges")
            case "dispute": check(object, Self.dispute, type)
            default: Issue.record("unexpected object in \(type)")
            }
        }
        #expect(
            types == [
                "checkout.session.completed", "customer.subscription.created", "customer.subscription.updated", "customer.subscription.deleted",
                "invoice.paid", "invoice.payment_failed", "charge.refunded", "charge.dispute.created", "charge.dispute.closed",
            ])
    }

    @Test func retrievedObjectsAndThePortalHaveStripesShape() async {
        let h = Harness()
        guard let sub = await h.stripeSubscribe() else {
            Issue.record("no subscription")
            return
        }
        let subscription = await h.stripe("GET", "/subscriptions/\(sub)")
        check(subscription.json, Self.subscription, "subscription")
        #expect(subscription.headers["Stripe-Version"] == StripeResources.apiVersion)
        #expect(subscription.headers["Request-Id"]?.hasPrefix("req_") == true)
        let invoiceID = subscription.json?["latest_invoice"]?.stringValue ?? ""
        let invoice = await h.stripe("GET", "/invoices/\(invoiceID)")
        check(invoice.json, Self.invoice, "invoice")
        let customer = subscription.json?["customer"]?.stringValue ?? ""
        let portal = await h.stripe(
            "POST", "/billing_portal/sessions", form: [("customer", customer), ("return_url", "https://app.example/account")])
        check(portal.json, Self.portal, "billing portal session")
        #expect(portal.json?["url"]?.stringValue?.contains("/manage/stripe/\(sub)") == true)
        let list = await h.stripe("GET", "/subscriptions")
        check(list.json, Self.list, "subscription list")
        let customers = await h.stripe("GET", "/customers?email=ada%40example.com")
        check(customers.json, Self.list, "customer list")
        #expect(customers.json?["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [customer])
        for c in customers.json?["data"]?.arrayValue ?? [] { check(c, Self.customer, "customer") }
        #expect(await h.stripe("GET", "/customers?email=ADA%40example.com").json?["data"]?.arrayValue?.isEmpty == true)
    }

    /// `{"error":{"type","code","message","param"}}` with Stripe's statuses.
    @Test func errorsHaveStripesShape() async {
        let h = Harness()
        let noKey = await h.stripe("GET", "/products", key: nil)
        #expect(noKey.status == 401)
        #expect(noKey.json?["error"]?["type"]?.stringValue == "invalid_request_error")
        let wrongKey = await h.stripe("GET", "/products", key: "sk_test_wrong_key_9999")
        #expect(wrongKey.status == 401)
        #expect(wrongKey.json?["error"]?["message"]?.stringValue?.contains("sk_test_") == true)
        #expect(wrongKey.json?["error"]?["message"]?.stringValue?.contains("wrong_key") == false, "the key is masked")
        let missing = await h.stripe("GET", "/subscriptions/sub_nope")
        #expect(missing.status == 404)
        #expect(missing.json?["error"]?["code"]?.stringValue == "resource_missing")
        #expect(missing.json?["error"]?["param"]?.stringValue == "id")
        let noMode = await h.stripe("POST", "/checkout/sessions", form: [("success_url", "https://a.example")])
        #expect(noMode.status == 400)
        #expect(noMode.json?["error"]?["code"]?.stringValue == "parameter_missing")
        #expect(noMode.json?["error"]?["param"]?.stringValue == "mode")
        let wrongMode = await h.stripe(
            "POST", "/checkout/sessions",
            form: [("mode", "payment"), ("line_items[0][price]", "price_SbxPremiumMonthly"), ("success_url", "https://a.example")])
        #expect(wrongMode.status == 400)
        #expect(wrongMode.json?["error"]?["param"]?.stringValue == "line_items[0][price]")
        let unknown = await h.stripe("GET", "/coupons")
        #expect(unknown.status == 404)
        #expect(unknown.json?["error"]?["message"]?.stringValue?.hasPrefix("Unrecognized request URL") == true)
    }
}
