import Foundation
import BillingModel
import JSONCodec

/// The facts of one demo subscription that every one of its events repeats.
struct LemonSqueezySubscriptionFacts: Sendable {
    let id: String
    let appUserID: String
    /// The Storefront checkout the purchase came from (custom data, with its proof).
    let checkoutID: String
    /// `OwnershipProof.proof(checkoutID:appUserID:)` under the stack's `OWNERSHIP_PROOF_KEY`,
    /// so the projector takes ``appUserID`` for a proven owner.
    let ownershipProof: String
    let customerID: Int
    let email: String
    let createdAt: Date
}

/// Builds webhook bodies in Lemon Squeezy's shape
/// (`{"meta":{event_name, webhook_id, custom_data, test_mode}, "data":{type, id, attributes}}`),
/// with the fields the normalizer reads and the usual neighbours.
enum LemonSqueezyWebhookBody {
    static func timestamp(_ date: Date) -> String { Timestamp.format(date) }

    static func make(
        eventName: String, webhookID: String, subscription: LemonSqueezySubscriptionFacts,
        status: String, invoiceID: Int, updatedAt: Date
    ) -> [UInt8] {
        let meta: [String: Any] = [
            "test_mode": true,
            "event_name": eventName,
            "webhook_id": webhookID,
            // What Storefront's checkout sends and Lemon Squeezy echoes on every event of the purchase.
            "custom_data": [
                CustomDataKeys.appUserID: subscription.appUserID, CustomDataKeys.checkoutID: subscription.checkoutID,
                CustomDataKeys.proof: subscription.ownershipProof,
            ],
        ]
        let data: [String: Any]
        if eventName == "subscription_payment_success" {
            data = [
                "type": "subscription-invoices",
                "id": String(invoiceID),
                "attributes": [
                    "store_id": 1, "subscription_id": Int(subscription.id) ?? 0, "customer_id": subscription.customerID,
                    "user_name": "Scale Demo", "user_email": subscription.email, "billing_reason": "renewal",
                    "card_brand": "visa", "card_last_four": "4242", "currency": "USD", "status": "paid",
                    "status_formatted": "Paid", "refunded": false, "subtotal": 1200, "tax": 0, "total": 1200,
                    "total_formatted": "$12.00", "refunded_amount": 0,
                    "created_at": timestamp(updatedAt), "updated_at": timestamp(updatedAt), "test_mode": true,
                ] as [String: Any],
            ]
        } else {
            let ended = status == "cancelled" || status == "expired"
            data = [
                "type": "subscriptions",
                "id": subscription.id,
                "attributes": [
                    "store_id": 1, "customer_id": subscription.customerID, "order_id": subscription.customerID + 1,
                    "product_id": 1001, "variant_id": 2001, "product_name": "Storefront Pro", "variant_name": "Monthly",
                    "user_name": "Scale Demo", "user_email": subscription.email,
                    "status": status, "status_formatted": status.replacingOccurrences(of: "_", with: " ").capitalized,
                    "card_brand": "visa", "card_last_four": "4242", "pause": NSNull(), "cancelled": status == "cancelled",
                    "trial_ends_at": NSNull(), "billing_anchor": 1,
                    "renews_at": timestamp(updatedAt.addingTimeInterval(30 * 86_400)),
                    "ends_at": ended ? timestamp(updatedAt.addingTimeInterval(86_400)) as Any : NSNull(),
                    "created_at": timestamp(subscription.createdAt), "updated_at": timestamp(updatedAt), "test_mode": true,
                    "urls": [
                        "update_payment_method": "https://storefront-demo.lemonsqueezy.com/subscription/\(subscription.id)/payment-details",
                        "customer_portal": "https://storefront-demo.lemonsqueezy.com/billing",
                    ],
                ] as [String: Any],
            ]
        }
        let root: [String: Any] = ["meta": meta, "data": data]
        // Only strings, numbers, booleans, NSNull, arrays and dictionaries: serialisation cannot fail.
        let bytes = (try? JSONSerialization.data(withJSONObject: root, options: [.sortedKeys])) ?? Data()
        return [UInt8](bytes)
    }
}
