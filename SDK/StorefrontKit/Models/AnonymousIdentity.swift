import Foundation

/// A Storefront anonymous user, as `POST /api/anonymous` created it: the
/// user a client started with ``StorefrontClient/AppUser/anonymous`` buys as
/// before anyone signs in.
///
/// ``token`` is a bearer credential (a Storefront-signed JWT whose `sub` is
/// ``appUserID``): stores keep it where the platform keeps secrets, and
/// ``description`` leaves it out.
public struct AnonymousIdentity: Codable, Hashable, Sendable, CustomStringConvertible {
    /// The anonymous user's id, `anon_<32 hex>`.
    public var appUserID: String
    /// The token sent as `Authorization: Bearer` for this user.
    public var token: String
    /// When the server stops accepting ``token``; the client creates a new
    /// anonymous user from then on (the old one's purchases are reached only
    /// through a redemption link or ``StorefrontClient/restorePurchases()`` after sign-in).
    public var expiresAt: Date

    /// Creates an identity, e.g. for a custom ``AnonymousIdentityStore`` or tests.
    public init(appUserID: String, token: String, expiresAt: Date) {
        self.appUserID = appUserID
        self.token = token
        self.expiresAt = expiresAt
    }

    /// Whether the token is expired at `now`, or expires within `margin`
    /// (so a request does not leave with a token that lapses on its way).
    public func isExpired(at now: Date, margin: Duration = .seconds(60)) -> Bool {
        expiresAt.timeIntervalSince(now) <= margin.timeInterval
    }

    /// The id and expiry, never the token.
    public var description: String { "AnonymousIdentity(\(appUserID), expires \(WireDate.format(expiresAt)))" }

    /// The server's names: `appUserId`, `token`, `expiresAt` (RFC 3339).
    enum CodingKeys: String, CodingKey { case appUserID = "appUserId", token, expiresAt }

    /// Decodes the server's answer (or a stored copy, which has its shape).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        appUserID = try c.decode(String.self, forKey: .appUserID)
        token = try c.decode(String.self, forKey: .token)
        expiresAt = try c.decodeRequiredDate(forKey: .expiresAt)
    }

    /// Encodes in the server's shape.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(appUserID, forKey: .appUserID)
        try c.encode(token, forKey: .token)
        try c.encodeDate(expiresAt, forKey: .expiresAt)
    }
}
