/// What an API key may do. Stored as its raw value; a key holds one or more.
///
/// A scope is named after what its holder can do, not only what it can read:
/// a read that hands out a link or token able to cancel a subscription or
/// change its card is, for whoever holds it, a way to manage that
/// subscription, so it lives under ``subscriptionsManage``, never under a
/// `:read` scope.
public enum APIKeyScope: String, Sendable, CaseIterable, Codable {
    /// `GET /api/users/{app_user_id}/entitlements` and `…/subscription`, with
    /// every field that can act on a subscription null
    /// (`SubscriptionStatusResponse.withoutCapabilities`): what access the
    /// user has and why, never a way to change it.
    case entitlementsRead = "entitlements:read"
    /// The same routes with the capabilities included: the Lemon Squeezy
    /// customer portal link (pre-signed: cancels, changes the card), Paystack's
    /// `email_token` (disables, with the subscription code) and the pending
    /// checkout's URL. Includes ``entitlementsRead``.
    case subscriptionsManage = "subscriptions:manage"
    /// `POST /api/users/{app_user_id}/grants` and `DELETE …/grants/{grant_id}`:
    /// gives and takes back promotional entitlements (docs/grants.md).
    /// Includes ``entitlementsRead``, to see what a grant changed.
    case entitlementsWrite = "entitlements:write"
    /// `POST /api/users/{app_user_id}/refunds`: gives a customer's money back
    /// through the provider. Moves money, so no other scope includes it and it
    /// includes no other: a support tool's key holds it next to a read scope
    /// when it reads too.
    case purchasesRefund = "purchases:refund"

    /// The scopes a key holding this one has as well.
    public var includes: Set<APIKeyScope> {
        switch self {
        case .entitlementsRead: [.entitlementsRead]
        case .subscriptionsManage: [.subscriptionsManage, .entitlementsRead]
        case .entitlementsWrite: [.entitlementsWrite, .entitlementsRead]
        case .purchasesRefund: [.purchasesRefund]
        }
    }
}

extension Set where Element == APIKeyScope {
    /// Whether a key holding these scopes has `scope`, directly or through one that includes it.
    public func grants(_ scope: APIKeyScope) -> Bool {
        contains { $0.includes.contains(scope) }
    }
}
