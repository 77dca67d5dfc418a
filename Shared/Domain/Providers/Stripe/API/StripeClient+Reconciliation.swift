import BillingModel
import Webhooks
import Foundation
import HTTPClient
import JSONCodec

/// What the reconciler fetches: the object a webhook names, byte for byte
/// (a snapshot passes it on untouched), and the subscriptions sweep.
extension StripeClient {
    /// `GET /v1/subscriptions/{id}`.
    /// - Throws: ``ProviderError`` (`.notFound` when the account has no such subscription).
    public func subscriptionDocument(id: String) async throws(ProviderError) -> ProviderDocument {
        try await object("subscriptionDocument", path: "/v1/subscriptions", id: id, type: "subscription")
    }

    /// `GET /v1/checkout/sessions/{id}` (`cs_…`).
    public func checkoutSessionDocument(id: String) async throws(ProviderError) -> ProviderDocument {
        try await object("checkoutSessionDocument", path: "/v1/checkout/sessions", id: id, type: "checkout.session")
    }

    /// `GET /v1/invoices/{id}?expand[]=payments` (`in_…`): from API `2025-03-31.basil`
    /// on, the invoice's payments are the only link from a subscription to the
    /// PaymentIntents that paid it, which its refunds and disputes name.
    public func invoiceDocument(id: String) async throws(ProviderError) -> ProviderDocument {
        try await object("invoiceDocument", path: "/v1/invoices", id: id, type: "invoice", query: [("expand[]", "payments")])
    }

    /// `GET /v1/payment_intents/{id}` (`pi_…`): a one-time purchase's payment, with its metadata.
    public func paymentIntentDocument(id: String) async throws(ProviderError) -> ProviderDocument {
        try await object("paymentIntentDocument", path: "/v1/payment_intents", id: id, type: "payment_intent")
    }

    /// One page of `GET /v1/subscriptions?status=all` (every status, ended
    /// ones included; newest first), created at or after `createdSince` when
    /// given, starting after the id `startingAfter` (the previous page's
    /// ``StripePage/nextCursor``).
    public func subscriptionsPage(createdSince: Date? = nil, startingAfter: String? = nil) async throws(ProviderError) -> StripePage {
        let operation = "subscriptionsPage"
        if let startingAfter { try checkID(startingAfter, operation, what: "cursor") }
        var filters = [("status", "all")]
        if let createdSince { filters.append(("created[gte]", String(Int64(createdSince.timeIntervalSince1970.rounded(.down))))) }
        return try await listPage(operation, "/v1/subscriptions", filters, startingAfter: startingAfter)
    }

    private func object(
        _ operation: String, path: String, id: String, type: String, query: [(name: String, value: String)] = []
    ) async throws(ProviderError) -> ProviderDocument {
        try checkID(id, operation, what: "\(type) id")
        let document = try await send(StripeRequest(operation: operation, method: .get, path: "\(path)/\(id)", query: query))
        guard document.json["object"]?.string == type, document.json["id"]?.string == id else {
            throw failure(operation, .decoding, "answer is not the \(type) asked for")
        }
        return document
    }
}
