import Foundation
import BillingModel
import Providers

/// Answer to cancel and resume: `{"success":true,"message":"…"}` plus the
/// subscription as the provider reports it afterwards.
public struct SubscriptionCommandResponse: Codable, Sendable, Hashable {
    public var success: Bool
    public var message: String
    public var provider: Provider
    public var subscriptionCode: String
    /// The provider's status afterwards (`cancelled`, `non-renewing`, `active`, …).
    public var status: String
    public var endsAt: Date?
    public var renewsAt: Date?
    public var cancelAtPeriodEnd: Bool

    enum CodingKeys: String, CodingKey {
        case success, message, provider, status
        case subscriptionCode = "subscription_code"
        case endsAt = "ends_at"
        case renewsAt = "renews_at"
        case cancelAtPeriodEnd = "cancel_at_period_end"
    }

    /// - Parameter knownPeriodEnd: the end of the paid period as the projection
    ///   knows it, used when the provider's answer has none (Paystack clears
    ///   `next_payment_date` when a subscription is disabled).
    init(message: String, subscription: ProviderSubscription, knownPeriodEnd: Date?, now: Date) {
        success = true
        self.message = message
        provider = subscription.provider
        subscriptionCode = subscription.id
        status = subscription.status
        // Paystack reports the end of a non-renewing subscription as its next payment date.
        endsAt = subscription.endsAt ?? (subscription.cancelled ? subscription.nextPaymentDate ?? knownPeriodEnd : nil)
        renewsAt = subscription.cancelled ? nil : subscription.renewsAt
        cancelAtPeriodEnd = subscription.cancelled && (endsAt.map { $0 > now } ?? false)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        success = try c.decode(Bool.self, forKey: .success)
        message = try c.decode(String.self, forKey: .message)
        provider = try c.decode(Provider.self, forKey: .provider)
        subscriptionCode = try c.decode(String.self, forKey: .subscriptionCode)
        status = try c.decode(String.self, forKey: .status)
        endsAt = try c.decodeIfPresent(String.self, forKey: .endsAt).flatMap(Timestamp.parse)
        renewsAt = try c.decodeIfPresent(String.self, forKey: .renewsAt).flatMap(Timestamp.parse)
        cancelAtPeriodEnd = try c.decode(Bool.self, forKey: .cancelAtPeriodEnd)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(success, forKey: .success)
        try c.encode(message, forKey: .message)
        try c.encode(provider, forKey: .provider)
        try c.encode(subscriptionCode, forKey: .subscriptionCode)
        try c.encode(status, forKey: .status)
        try c.encode(endsAt.map(Timestamp.format), forKey: .endsAt)
        try c.encode(renewsAt.map(Timestamp.format), forKey: .renewsAt)
        try c.encode(cancelAtPeriodEnd, forKey: .cancelAtPeriodEnd)
    }
}
