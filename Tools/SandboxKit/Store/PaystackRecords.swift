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
    /// `abandoned` until paid, then `success`; `reversed` after a refund.
    var status: String
    let createdAt: Date
    var paidAt: Date?
    var customerID: Int?
    var subscriptionID: Int?
}

struct PSAuthorization: Sendable {
    let code: String
    let signature: String
    let bin = "408408"
    let last4 = "4081"
    let expMonth = "12"
    let expYear = "2030"
    let brand = "visa"
}

struct PSCustomer: Sendable {
    let id: Int
    let code: String
    let email: String
    let createdAt: Date
    var updatedAt: Date
    var authorization: PSAuthorization?
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
    let authorizationCode: String
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
