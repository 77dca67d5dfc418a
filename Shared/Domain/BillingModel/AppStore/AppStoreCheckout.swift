import Foundation

/// Where a checkout opened from an App Store app came from: the storefront
/// StoreKit reported and, where the storefront needs Apple's External
/// Purchase entitlement, the token the app obtained. Kept on the checkout
/// (`storefront.checkouts.v1`, JSON `appStore`) for the reports to Apple and
/// a commission per storefront (docs/app-store.md).
public struct AppStoreCheckout: Codable, Sendable, Hashable {
    public var storefront: AppStoreStorefront
    /// The token's `externalPurchaseId`; nil where none was needed or sent.
    public var externalPurchaseID: String?
    public var tokenType: ExternalPurchaseToken.TokenType?
    public var tokenExpiresAt: Date?

    public init(storefront: AppStoreStorefront, token: ExternalPurchaseToken? = nil) {
        self.storefront = storefront
        externalPurchaseID = token?.externalPurchaseID
        tokenType = token?.tokenType
        tokenExpiresAt = token?.expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case storefront, externalPurchaseID = "externalPurchaseId", tokenType, tokenExpiresAt
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        storefront = try c.decode(AppStoreStorefront.self, forKey: .storefront)
        externalPurchaseID = try c.decodeIfPresent(String.self, forKey: .externalPurchaseID)
        tokenType = try c.decodeIfPresent(ExternalPurchaseToken.TokenType.self, forKey: .tokenType)
        tokenExpiresAt = try c.decodeTimestamp(forKey: .tokenExpiresAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(storefront, forKey: .storefront)
        try c.encodeIfPresent(externalPurchaseID, forKey: .externalPurchaseID)
        try c.encodeIfPresent(tokenType, forKey: .tokenType)
        if tokenExpiresAt != nil { try c.encodeTimestamp(tokenExpiresAt, forKey: .tokenExpiresAt) }
    }
}
