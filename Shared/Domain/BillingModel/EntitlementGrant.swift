import Foundation

/// One promotional grant as the server API answers it
/// (`POST /api/users/{app_user_id}/grants`, `DELETE …/grants/{grant_id}`) and
/// `storefront grant` prints it. Keys are snake_case; absent values are `null`.
public struct EntitlementGrant: Codable, Sendable, Hashable {
    /// Whether the projection shows it yet.
    public enum State: String, Codable, Sendable, Hashable {
        /// Recorded: the entitlement answers show it (or, revoked, no longer do).
        case applied
        /// Published but not yet applied when the answer was sent (the
        /// projector is behind): it will be, in order, without another request.
        case pending
    }

    public var grantID: String
    public var appUserID: String
    public var entitlement: String
    public var startsAt: Date
    public var expiresAt: Date
    public var revokedAt: Date?
    /// `api_key:<key id>` of whoever gave it.
    public var grantedBy: String
    public var revokedBy: String?
    public var reason: String?
    public var state: State

    public init(
        grantID: String, appUserID: String, entitlement: String, startsAt: Date, expiresAt: Date, revokedAt: Date? = nil,
        grantedBy: String, revokedBy: String? = nil, reason: String? = nil, state: State
    ) {
        self.grantID = grantID
        self.appUserID = appUserID
        self.entitlement = entitlement
        self.startsAt = startsAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.grantedBy = grantedBy
        self.revokedBy = revokedBy
        self.reason = reason
        self.state = state
    }

    enum CodingKeys: String, CodingKey {
        case entitlement, reason, state
        case grantID = "grant_id", appUserID = "app_user_id", startsAt = "starts_at", expiresAt = "expires_at"
        case revokedAt = "revoked_at", grantedBy = "granted_by", revokedBy = "revoked_by"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        grantID = try c.decode(String.self, forKey: .grantID)
        appUserID = try c.decode(String.self, forKey: .appUserID)
        entitlement = try c.decode(String.self, forKey: .entitlement)
        startsAt = try c.decodeRequiredTimestamp(forKey: .startsAt)
        expiresAt = try c.decodeRequiredTimestamp(forKey: .expiresAt)
        revokedAt = try c.decodeTimestamp(forKey: .revokedAt)
        grantedBy = try c.decode(String.self, forKey: .grantedBy)
        revokedBy = try c.decodeIfPresent(String.self, forKey: .revokedBy)
        reason = try c.decodeIfPresent(String.self, forKey: .reason)
        state = try c.decode(State.self, forKey: .state)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(grantID, forKey: .grantID)
        try c.encode(appUserID, forKey: .appUserID)
        try c.encode(entitlement, forKey: .entitlement)
        try c.encodeTimestamp(startsAt, forKey: .startsAt)
        try c.encodeTimestamp(expiresAt, forKey: .expiresAt)
        try c.encodeTimestamp(revokedAt, forKey: .revokedAt)
        try c.encode(grantedBy, forKey: .grantedBy)
        if let revokedBy { try c.encode(revokedBy, forKey: .revokedBy) } else { try c.encodeNil(forKey: .revokedBy) }
        if let reason { try c.encode(reason, forKey: .reason) } else { try c.encodeNil(forKey: .reason) }
        try c.encode(state, forKey: .state)
    }
}
