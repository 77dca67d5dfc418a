import Foundation

/// One purchase as the server names it: who sold it, what it is, and its id
/// there (`{"provider":"lemonsqueezy","type":"subscription","id":"…"}`).
public struct PurchaseReference: Codable, Hashable, Sendable, CustomStringConvertible {
    /// Who sold it.
    public var provider: Provider
    /// The server's word for what it is: `subscription`, or a one-time purchase's.
    public var type: String
    /// Its id at the provider.
    public var id: String

    /// Creates a reference, e.g. for previews and tests.
    public init(provider: Provider, type: String, id: String) {
        self.provider = provider
        self.type = type
        self.id = id
    }

    /// `provider:type:id`, the server's key for the purchase.
    public var description: String { "\(provider):\(type):\(id)" }
}

/// What ``StorefrontClient/redeem(_:)`` found: the answer of `POST /api/redeem`.
public enum RedemptionOutcome: Hashable, Sendable, CustomStringConvertible {
    /// The purchase is now the user's (200 `redeemed`); entitlements were refreshed.
    case redeemed(PurchaseReference)
    /// It was the user's already (200 `already_yours`, e.g. a link opened twice).
    case alreadyYours(PurchaseReference)
    /// Someone else redeemed it (409): the buyer should sign in as that user,
    /// or ask support.
    case belongsToAnotherUser
    /// The link is too old (410). The buyer asks for a new one by email
    /// (`POST /api/redeem/resend`), or signs in and restores purchases.
    case expired
    /// No purchase has that link (404 `unknown`), or the URL is not a redemption link.
    case unknown

    /// The purchase the user now owns (``redeemed(_:)``, ``alreadyYours(_:)``); nil otherwise.
    public var purchase: PurchaseReference? {
        switch self {
        case .redeemed(let purchase), .alreadyYours(let purchase): purchase
        case .belongsToAnotherUser, .expired, .unknown: nil
        }
    }

    /// `redeemed(…)`, `alreadyYours(…)`, `belongsToAnotherUser`, `expired` or `unknown`.
    public var description: String {
        switch self {
        case .redeemed(let purchase): "redeemed(\(purchase))"
        case .alreadyYours(let purchase): "alreadyYours(\(purchase))"
        case .belongsToAnotherUser: "belongsToAnotherUser"
        case .expired: "expired"
        case .unknown: "unknown"
        }
    }
}

/// What ``StorefrontClient/restorePurchases()`` claimed, and what the user is entitled to afterwards.
public struct RestoreResult: Hashable, Sendable {
    /// The purchases that had no owner, were paid with the user's verified
    /// email, and are the user's now; empty when there were none.
    public var claimed: [PurchaseReference]
    /// The user's entitlements after the claim (as ``StorefrontClient/entitlements(cachePolicy:)`` would answer).
    public var entitlements: [EntitlementInfo]

    /// Creates a result, e.g. for previews and tests.
    public init(claimed: [PurchaseReference], entitlements: [EntitlementInfo]) {
        self.claimed = claimed
        self.entitlements = entitlements
    }
}

/// What ``StorefrontClient/handleUniversalLink(_:)`` did with a Storefront link.
public enum UniversalLinkResult: Hashable, Sendable {
    /// A redemption link (`/redeem/<token>`): what ``StorefrontClient/redeem(_:)`` answered, or its error.
    case redemption(Result<RedemptionOutcome, StorefrontError>)
    /// The checkout's completion page (`/checkout/complete`): entitlements
    /// were refreshed and a running ``StorefrontClient/awaitCheckout(_:timeout:)``
    /// woken, as ``StorefrontClient/handleRedirect(_:)`` does. `checkoutID` is
    /// the link's `checkout_id`; `isKnown` says whether this client opened or
    /// awaits that checkout (false: a checkout made elsewhere, e.g. on the
    /// web paywall, whose purchase reaches the app by a redemption link).
    case checkoutReturn(checkoutID: String?, isKnown: Bool)
}

/// `{"token":"…"}`, or `{"checkoutId":"…"}` for an anonymous checkout's completion page.
struct RedeemRequestBody: Encodable {
    var token: String?
    var checkoutId: String?

    init(token: String) { self.token = token }
    init(checkoutID: String) { self.checkoutId = checkoutID }
}

/// `POST /api/redeem`'s answer, for each status: the outcome (or the error
/// code) and, when the user owns it, the purchase.
struct RedeemAnswer: Decodable {
    var outcome: String?
    var code: String?
    var purchase: PurchaseReference?
}

/// `POST /api/restore`'s answer.
struct RestoreAnswer: Decodable {
    var claimed: [PurchaseReference]
    var entitlements: [EntitlementInfo]
}
