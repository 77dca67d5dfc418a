import BillingModel
import Foundation
import HTTPServer
import Providers

/// The answer of `POST /api/users/{app_user_id}/refunds` when the provider
/// accepted the refund. Access has not changed yet: it follows the provider's
/// refund webhook (docs/server-api.md, "Refunds").
struct RefundAnswer: Encodable, Sendable {
    struct Purchase: Encodable, Sendable {
        var provider: Provider
        var type: PurchaseType
        var id: String
    }

    var success = true
    var message = "Refund requested; access follows the provider's refund webhook"
    var purchase: Purchase
    /// The payment refunded, as the projection names it.
    var paymentID: String
    var refund: ProviderRefund
    /// The id of the `refund_requested` record on `storefront.commands.v1`.
    var commandID: String

    enum CodingKeys: String, CodingKey {
        case success, message, purchase, refund
        case paymentID = "payment_id", commandID = "command_id"
    }
}

/// What an idempotency record keeps of a refund answer: its status as well
/// as its body, since a refused or unanswered refund is replayed as it was
/// (a repeat must not call the provider again).
enum StoredRefundAnswer {
    static func encode(status: HTTPStatus, body: [UInt8]) -> String {
        "\(status.code) " + String(decoding: body, as: UTF8.self)
    }

    static func decode(_ stored: String) -> (HTTPStatus, [UInt8])? {
        guard let space = stored.firstIndex(of: " "), let code = Int(stored[..<space]) else { return nil }
        return (HTTPStatus(code: code), Array(stored[stored.index(after: space)...].utf8))
    }
}
