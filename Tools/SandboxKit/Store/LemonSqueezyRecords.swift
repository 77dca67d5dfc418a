import Foundation

/// A checkout created through `POST /v1/checkouts` (or a buy link).
struct LSCheckout: Sendable {
    let id: String
    let storeID: Int
    let variantID: Int
    var customPrice: Int?
    var productOptions: JSONValue
    var checkoutOptions: JSONValue
    var email: String
    var name: String
    /// `checkout_data.custom`, echoed as `meta.custom_data`.
    var custom: JSONValue?
    var expiresAt: Date?
    var testMode: Bool
    let createdAt: Date
    var paidOrderID: Int?
    /// `checkout_data.discount_code`, checked when the checkout was created.
    var discountCode: String? = nil

    var redirectURL: String? {
        guard let url = productOptions["redirect_url"]?.stringValue, !url.isEmpty else { return nil }
        return url
    }
}

struct LSOrder: Sendable {
    let id: Int
    let identifier: String
    let orderNumber: Int
    let orderItemID: Int
    let storeID: Int
    let customerID: Int
    let userName: String
    let userEmail: String
    let productID: Int
    let variantID: Int
    let productName: String
    let variantName: String
    let total: Int
    /// `paid`, `partial_refund` after a partial refund, `refunded` once nothing is left.
    var status: String
    /// True only once fully refunded.
    var refunded: Bool
    /// The time of the latest refund.
    var refundedAt: Date?
    /// The running total of every refund so far, in cents.
    var refundedAmount: Int
    let custom: JSONValue?
    let testMode: Bool
    let createdAt: Date
    var updatedAt: Date
    var subscriptionID: Int?
    /// Cents a discount code took off (`discount_total`; `subtotal` is `total` plus this).
    var discountTotal = 0
}

struct LSSubscription: Sendable {
    let id: Int
    let storeID: Int
    let customerID: Int
    let orderID: Int
    let orderItemID: Int
    var productID: Int
    var variantID: Int
    var productName: String
    var variantName: String
    let userName: String
    let userEmail: String
    /// `on_trial|active|paused|past_due|unpaid|cancelled|expired`.
    var status: String
    var cancelled: Bool
    var pauseMode: String?
    var pauseResumesAt: Date?
    var renewsAt: Date
    var endsAt: Date?
    let billingAnchor: Int
    var price: Int
    var interval: String
    var intervalCount: Int
    let cardBrand: String
    let cardLastFour: String
    let custom: JSONValue?
    let subscriptionItemID: Int
    let priceID: Int
    let testMode: Bool
    let createdAt: Date
    var updatedAt: Date
    var invoiceIDs: [Int]
    /// Set while a free trial has not turned into a paid subscription (the
    /// first charge clears it); `trial_ends_at` shows it.
    var trialEndsAt: Date? = nil
}

struct LSInvoice: Sendable {
    let id: Int
    let subscriptionID: Int
    let storeID: Int
    let customerID: Int
    let userName: String
    let userEmail: String
    /// `initial|renewal|updated`.
    let billingReason: String
    /// `pending|paid|void|refunded|partial_refunded`.
    var status: String
    let total: Int
    /// True only once fully refunded.
    var refunded: Bool
    /// The time of the latest refund.
    var refundedAt: Date?
    /// The running total of every refund so far, in cents.
    var refundedAmount: Int = 0
    let cardBrand: String
    let cardLastFour: String
    let testMode: Bool
    let createdAt: Date
    var updatedAt: Date
    /// Cents a discount code took off this invoice (the first one only).
    var discountTotal = 0
}
