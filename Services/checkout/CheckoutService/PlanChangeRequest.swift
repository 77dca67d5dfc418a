import Foundation
import BillingModel
import Providers
import HTTPServer

/// `POST /api/subscription/change`: `{"variantId", "effective", "proration"}`,
/// and optionally the `subscription_code` to change when the owner has
/// several subscriptions of the group.
struct PlanChangeRequest: Decodable, Sendable {
    var variantId: String
    /// `now` (the default) or `period_end`.
    var effective: String?
    /// `prorate` (the default) or `none`.
    var proration: String?
    var subscriptionCode: String?

    enum CodingKeys: String, CodingKey { case variantId, effective, proration, subscriptionCode = "subscription_code" }

    /// The change asked for, checked: the catalog id of the new plan and both words.
    func checked() throws(HTTPError) -> (variant: CatalogID, effective: PlanChange.Effective, proration: PlanChange.Proration) {
        guard !variantId.isEmpty else { throw HTTPError(.badRequest, "variantId is required") }
        guard let variant = CatalogID(variantId) else {
            throw HTTPError(.badRequest, "variantId is not a valid catalog id (e.g. ls_123 or st_price_abc)")
        }
        guard let effective = PlanChange.Effective(rawValue: effective ?? PlanChange.Effective.now.rawValue) else {
            throw HTTPError(.badRequest, "effective must be now or period_end", code: "invalid_effective")
        }
        guard let proration = PlanChange.Proration(rawValue: proration ?? PlanChange.Proration.prorate.rawValue) else {
            throw HTTPError(.badRequest, "proration must be prorate or none", code: "invalid_proration")
        }
        return (variant, effective, proration)
    }

    /// A digest of the fields in a fixed order, for the `Idempotency-Key` record.
    var canonical: String {
        [variantId, effective ?? "", proration ?? "", subscriptionCode ?? ""].map { "\($0.utf8.count):\($0)" }.joined(separator: "|")
    }
}

/// Which subscription and which change: what a plan change's answer and its
/// preview's both carry.
struct PlanChangeSubject: Encodable, Sendable {
    var provider: Provider
    var subscriptionCode: String
    /// The new plan's catalog id.
    var variantId: String
    var effective: PlanChange.Effective
    var proration: PlanChange.Proration

    enum CodingKeys: String, CodingKey {
        case provider, variantId, effective, proration
        case subscriptionCode = "subscription_code"
    }
}

/// The answer to a plan change: the subscription as the provider reports it
/// afterwards, and the plan it is on (or, for a scheduled change, will be on).
struct PlanChangeResponse: Encodable, Sendable {
    var success = true
    var message: String
    var subject: PlanChangeSubject
    /// The provider's status afterwards.
    var status: String
    var renewsAt: Date?

    enum CodingKeys: String, CodingKey {
        case success, message, status
        case renewsAt = "renews_at"
    }

    /// The subject's fields, then the answer's own in the same object.
    func encode(to encoder: any Encoder) throws {
        try subject.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(success, forKey: .success)
        try c.encode(message, forKey: .message)
        try c.encode(status, forKey: .status)
        try c.encode(renewsAt.map(Timestamp.format), forKey: .renewsAt)
    }
}
