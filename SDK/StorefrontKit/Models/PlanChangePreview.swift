import Foundation

/// What a plan change would charge, as far as the provider can say
/// (``StorefrontClient/previewPlanChange(to:effective:proration:subscriptionCode:)``,
/// `GET /api/subscription/change/preview`). Amounts are in minor units of
/// ``currency`` (cents); nil where the provider cannot say.
public struct PlanChangePreview: Decodable, Hashable, Sendable {
    /// The charge after the change.
    public struct Charge: Hashable, Sendable {
        /// Minor units of the preview's currency.
        public var amount: Int64
        /// When it is charged; nil when the provider does not say.
        public var at: Date?
    }

    public var provider: Provider
    public var subscriptionCode: String
    /// The new plan's ``Product/variantID``.
    public var variantID: String
    public var effective: PlanChangeTiming
    public var proration: PlanChangeProration
    /// ISO 4217, uppercase; nil when nothing is known.
    public var currency: String?
    /// Charged when the change is made (0: nothing); nil when the provider cannot say
    /// (Lemon Squeezy computes a prorated amount only when it charges it).
    public var dueNow: Int64?
    /// The next charge afterwards; nil when the provider cannot say.
    public var next: Charge?
    /// False for an estimate: show it as "about".
    public var isExact: Bool

    enum CodingKeys: String, CodingKey {
        case provider, effective, proration, currency, next, exact, amount, at
        case subscriptionCode = "subscription_code", variantID = "variantId", dueNow = "due_now"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        provider = try c.decode(Provider.self, forKey: .provider)
        subscriptionCode = try c.decode(String.self, forKey: .subscriptionCode)
        variantID = try c.decode(String.self, forKey: .variantID)
        effective = try c.decode(PlanChangeTiming.self, forKey: .effective)
        proration = try c.decode(PlanChangeProration.self, forKey: .proration)
        currency = try c.decodeIfPresent(String.self, forKey: .currency)
        if try c.decodeNil(forKey: .dueNow) {
            dueNow = nil
        } else {
            dueNow = try c.nestedContainer(keyedBy: CodingKeys.self, forKey: .dueNow).decode(Int64.self, forKey: .amount)
        }
        if try c.decodeNil(forKey: .next) {
            next = nil
        } else {
            let nested = try c.nestedContainer(keyedBy: CodingKeys.self, forKey: .next)
            next = Charge(amount: try nested.decode(Int64.self, forKey: .amount), at: try nested.decodeDate(forKey: .at))
        }
        isExact = try c.decodeIfPresent(Bool.self, forKey: .exact) ?? false
    }
}
