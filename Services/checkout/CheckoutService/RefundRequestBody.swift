import Foundation
import HTTPServer
import BillingModel

/// The body of `POST /api/users/{app_user_id}/refunds`:
/// `{"purchase":{"provider":"stripe","type":"subscription","id":"sub_…"},"amount":500}`.
///
/// `purchase` names what the status answer names: a subscription by its
/// `provider` and `subscription_code`, an order by its provider and the
/// provider's order id (Lemon Squeezy order id, Paystack transaction id,
/// Stripe PaymentIntent `pi_…`). `amount` is in minor units (cents, kobo);
/// without it, all that is left of the payment is refunded.
struct RefundRequestBody: Decodable, Sendable {
    struct Purchase: Decodable, Sendable {
        var provider: String
        var type: String
        var id: String
    }

    var purchase: Purchase
    var amount: Int64?

    /// The checked request: a provider this build knows, a purchase type,
    /// an id fit for a provider path, a positive amount.
    func target() throws(HTTPError) -> RefundTarget {
        guard let provider = Provider(rawValue: purchase.provider) else {
            let known = Provider.allCases.map(\.rawValue).joined(separator: ", ")
            throw HTTPError(.badRequest, "purchase.provider must be one of \(known)", code: "invalid_purchase")
        }
        guard let type = PurchaseType(rawValue: purchase.type) else {
            throw HTTPError(.badRequest, "purchase.type must be subscription or order", code: "invalid_purchase")
        }
        let id = purchase.id.trimmingCharacters(in: .whitespaces)
        // Printable ASCII without `/`, `?` or `#`: ids go into provider paths.
        guard !id.isEmpty, id.utf8.count <= SubscriptionCommander.maximumFieldLength,
            id.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") })
        else {
            throw HTTPError(.badRequest, "purchase.id must be 1–128 printable ASCII characters", code: "invalid_purchase")
        }
        if let amount, amount <= 0 {
            throw HTTPError(.badRequest, "amount must be a positive number of minor units (cents)", code: "invalid_amount")
        }
        return RefundTarget(provider: provider, type: type, id: id, amount: amount)
    }
}

/// A refund request after its body was checked.
struct RefundTarget: Sendable, Hashable {
    var provider: Provider
    var type: PurchaseType
    var id: String
    /// Minor units; nil is all that is left.
    var amount: Int64?
}
