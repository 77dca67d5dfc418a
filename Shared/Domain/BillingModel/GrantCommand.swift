import Foundation

/// A `storefront.commands.v1` record that gives an app user an entitlement
/// without a purchase (a promotional grant, `store: "promotional"`), or takes
/// one such grant back. The checkout service publishes it for an API key with
/// `entitlements:write` after checking the request (docs/grants.md); the
/// projector records it in `entitlement_grants` (who asked, when) and
/// announces the change like any other.
///
/// Key: `grant:<app user id>`, so one user's grants and revocations keep their
/// order: a revocation never overtakes the grant it revokes.
public struct GrantCommand: Codable, Sendable, Hashable {
    /// The `kind` of a grant record.
    public static let grantKind = "grant_entitlement"
    /// The `kind` of a revocation record.
    public static let revokeKind = "revoke_grant"

    public enum Action: Sendable, Hashable {
        /// Gives ``GrantCommand/appUserID`` the entitlement from `startsAt` until `expiresAt`.
        case grant(entitlement: String, startsAt: Date, expiresAt: Date)
        /// Ends the grant now (a revocation of a grant that already ended changes nothing).
        case revoke
    }

    /// Unique id of the command (UUID string), for idempotent apply.
    public var commandID: String
    /// The grant's id (`grant_…`): chosen when it is given, named when it is revoked.
    public var grantID: String
    public var appUserID: String
    public var action: Action
    /// Who asked: `api_key:<key id>`.
    public var requestedBy: String
    public var requestedAt: Date
    /// Free text from whoever asked (a ticket number, say), at most ``maximumReasonLength`` bytes.
    public var reason: String?

    /// Longest ``reason`` kept.
    public static let maximumReasonLength = 500

    public init(
        commandID: String, grantID: String, appUserID: String, action: Action, requestedBy: String, requestedAt: Date, reason: String? = nil
    ) {
        self.commandID = commandID
        self.grantID = grantID
        self.appUserID = appUserID
        self.action = action
        self.requestedBy = requestedBy
        self.requestedAt = requestedAt
        self.reason = reason
    }

    /// The record's topic key.
    public var key: String { Self.key(appUserID: appUserID) }

    /// The topic key of every grant record of one user.
    public static func key(appUserID: String) -> String { "grant:\(appUserID.prefix(TopicKey.maximumEntityLength))" }

    enum CodingKeys: String, CodingKey {
        case kind, commandID = "commandId", grantID = "grantId", appUserID = "appUserId", entitlement, startsAt, expiresAt
        case requestedBy, requestedAt, reason
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        switch try c.decode(String.self, forKey: .kind) {
        case Self.grantKind:
            action = .grant(
                entitlement: try c.decode(String.self, forKey: .entitlement), startsAt: try c.decodeRequiredTimestamp(forKey: .startsAt),
                expiresAt: try c.decodeRequiredTimestamp(forKey: .expiresAt))
        case Self.revokeKind:
            action = .revoke
        default:
            throw DecodingError.dataCorruptedError(forKey: .kind, in: c, debugDescription: "not a grant record")
        }
        commandID = try c.decode(String.self, forKey: .commandID)
        grantID = try c.decode(String.self, forKey: .grantID)
        appUserID = try c.decode(String.self, forKey: .appUserID)
        requestedBy = try c.decode(String.self, forKey: .requestedBy)
        requestedAt = try c.decodeRequiredTimestamp(forKey: .requestedAt)
        reason = try c.decodeIfPresent(String.self, forKey: .reason)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch action {
        case .grant(let entitlement, let startsAt, let expiresAt):
            try c.encode(Self.grantKind, forKey: .kind)
            try c.encode(entitlement, forKey: .entitlement)
            try c.encodeTimestamp(startsAt, forKey: .startsAt)
            try c.encodeTimestamp(expiresAt, forKey: .expiresAt)
        case .revoke:
            try c.encode(Self.revokeKind, forKey: .kind)
        }
        try c.encode(commandID, forKey: .commandID)
        try c.encode(grantID, forKey: .grantID)
        try c.encode(appUserID, forKey: .appUserID)
        try c.encode(requestedBy, forKey: .requestedBy)
        try c.encodeTimestamp(requestedAt, forKey: .requestedAt)
        try c.encodeIfPresent(reason, forKey: .reason)
    }
}
