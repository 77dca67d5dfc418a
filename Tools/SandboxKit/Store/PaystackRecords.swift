import Foundation

/// A transaction from `POST /transaction/initialize` (or a renewal charge).
struct PSTransaction: Sendable {
    let id: Int
    let reference: String
    let accessCode: String
    let amount: Int
    let currency: String
    let email: String
    let planID: Int?
    let callbackURL: String?
    /// As sent by the client (object, string, or absent → `""` like the docs' examples).
    let metadata: JSONValue
    /// `abandoned` until paid, then `success`; `reversed` once fully refunded
    /// (a partial refund leaves it `success`).
    var status: String
    let createdAt: Date
    var paidAt: Date?
    var customerID: Int?
    var subscriptionID: Int?
    /// Set when paid: a fresh one for a checkout, the subscription's for a renewal.
    var authorization: PSAuthorization? = nil
    /// The running total of the money given back (refunds), in subunits.
    var refundedAmount: Int = 0
}

/// A card authorization, always Paystack's test Visa card.
///
/// Paystack issues a new `authorization_code` for every transaction paid at
/// checkout, even with the same card; `signature` is what stays the same for
/// one card. So the code is random (a client that treats it as a card or
/// customer key breaks here as it would live), and the signature is derived
/// from the customer and the card.
struct PSAuthorization: Sendable {
    static let bin = "408408"
    static let last4 = "4081"

    let code: String
    let signature: String
    var bin: String { Self.bin }
    var last4: String { Self.last4 }
    let expMonth = "12"
    let expYear = "2030"
    let brand = "visa"

    /// The authorization of one checkout payment by `customerCode`.
    init(issuedTo customerCode: String) {
        code = Formatting.randomCode("AUTH_", length: 10)
        signature = "SIG_" + Formatting.stableToken("\(customerCode)|\(Self.bin)|\(Self.last4)", length: 20)
    }
}

struct PSCustomer: Sendable {
    let id: Int
    let code: String
    let email: String
    let createdAt: Date
    var updatedAt: Date
}

struct PSSubscription: Sendable {
    let id: Int
    let code: String
    let emailToken: String
    /// `active|non-renewing|attention|completed|cancelled`.
    var status: String
    let amount: Int
    let planID: Int
    let customerID: Int
    /// The authorization of the transaction that created it, which every
    /// renewal charges and every subscription object and event shows.
    let authorization: PSAuthorization
    let start: Date
    var nextPaymentDate: Date?
    var openInvoice: String?
    var cancelledAt: Date?
    var paymentsCount: Int
    var invoiceIDs: [Int]
    let createdAt: Date
    var updatedAt: Date
}

struct PSInvoice: Sendable {
    let id: Int
    let code: String
    let subscriptionID: Int
    let amount: Int
    let periodStart: Date
    let periodEnd: Date
    /// `pending|success|failed`.
    var status: String
    var paid: Bool
    var paidAt: Date?
    var description: String?
    var transactionReference: String?
    let createdAt: Date
}

/// A chargeback on a transaction, driven by `POST /_sandbox/paystack/transactions/{reference}/dispute`.
/// A transaction has at most one open (unresolved) dispute.
struct PSDispute: Sendable {
    /// One line of the dispute's `history` (`{status, by, createdAt}`).
    struct Step: Sendable {
        let status: String
        let by: String
        let at: Date
    }

    /// One of the dispute's `messages` (`{sender, body, createdAt}`).
    struct Message: Sendable {
        let sender: String
        let body: String
        let at: Date
    }

    let id: Int
    let transactionReference: String
    /// Subunits disputed; on a `merchant-accepted` resolution, what goes back to the customer.
    var refundAmount: Int
    let currency: String
    /// `awaiting-merchant-feedback` while open, `resolved` once resolved.
    var status: String
    /// nil while open; `merchant-accepted` (the customer gets `refundAmount`
    /// back) or `declined` (the merchant keeps the money).
    var resolution: String?
    let dueAt: Date
    var resolvedAt: Date?
    var history: [Step]
    var messages: [Message]
    let createdAt: Date
    var updatedAt: Date
}
