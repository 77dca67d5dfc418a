import Foundation

/// When a plan change takes effect (``StorefrontClient/changePlan(to:effective:proration:subscriptionCode:)``).
public enum PlanChangeTiming: String, Codable, Hashable, Sendable {
    /// At once.
    case now
    /// When the paid period ends; the current plan stays until then.
    case periodEnd = "period_end"
}

/// What happens to the unused part of the current period.
public enum PlanChangeProration: String, Codable, Hashable, Sendable {
    /// The unused time is credited and the difference charged now.
    case prorate
    /// No credit, no extra charge: the new price from the next renewal.
    case none
}

/// The server's answer to a plan change (`POST /api/subscription/change`).
public struct PlanChangeResult: Decodable, Hashable, Sendable {
    /// A human-readable confirmation (`Plan changed`).
    public var message: String
    public var provider: Provider
    public var subscriptionCode: String
    /// The new plan's ``Product/variantID``.
    public var variantID: String
    public var effective: PlanChangeTiming
    public var proration: PlanChangeProration
    /// The provider's status word afterwards.
    public var providerStatus: String
    public var renewsAt: Date?

    enum CodingKeys: String, CodingKey {
        case message, provider, effective, proration, status
        case subscriptionCode = "subscription_code", variantID = "variantId", renewsAt = "renews_at"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        message = try c.decodeIfPresent(String.self, forKey: .message) ?? ""
        provider = try c.decode(Provider.self, forKey: .provider)
        subscriptionCode = try c.decode(String.self, forKey: .subscriptionCode)
        variantID = try c.decode(String.self, forKey: .variantID)
        effective = try c.decode(PlanChangeTiming.self, forKey: .effective)
        proration = try c.decode(PlanChangeProration.self, forKey: .proration)
        providerStatus = try c.decode(String.self, forKey: .status)
        renewsAt = try c.decodeDate(forKey: .renewsAt)
    }
}

/// `{"variantId":"…","effective":"…","proration":"…","subscription_code":"…"}`.
struct PlanChangeBody: Encodable {
    var variantId: String
    var effective: PlanChangeTiming
    var proration: PlanChangeProration
    var subscriptionCode: String?

    enum CodingKeys: String, CodingKey { case variantId, effective, proration, subscriptionCode = "subscription_code" }
}
