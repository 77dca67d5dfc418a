import Foundation
import BillingModel

/// The outgoing `purchase.redemption_issued` event (Standard Webhooks through
/// the webhook-sender, docs/webhooks-out.md): a redemption link was issued
/// for a purchase without an owner, for the seller's backend to email.
/// `id` is the redemption's id, so each link is sent once.
struct RedemptionIssuedEvent: Encodable, Sendable {
    static let type = "purchase.redemption_issued"
    static let topic = Topics.purchaseEvents

    var id: String
    var occurredAt: Date
    var purchase: PurchaseReference
    var email: String?
    var redemptionURL: String
    var expiresAt: Date
    var ref: String?

    var key: String { purchase.key }

    enum CodingKeys: String, CodingKey {
        case id, type, occurredAt = "occurred_at", purchase, email, redemptionURL = "redemption_url", expiresAt = "expires_at", ref
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(Self.type, forKey: .type)
        try c.encode(occurredAt.formatted(.iso8601), forKey: .occurredAt)
        try c.encode(purchase, forKey: .purchase)
        if let email { try c.encode(email, forKey: .email) } else { try c.encodeNil(forKey: .email) }
        try c.encode(redemptionURL, forKey: .redemptionURL)
        try c.encode(expiresAt.formatted(.iso8601), forKey: .expiresAt)
        if let ref { try c.encode(ref, forKey: .ref) } else { try c.encodeNil(forKey: .ref) }
    }
}
