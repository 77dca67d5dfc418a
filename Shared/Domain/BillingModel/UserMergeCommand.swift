import Foundation

/// A `storefront.commands.v1` record that merges an anonymous user (a
/// Storefront-signed id the app used before sign-in) into a signed-in app
/// user: every purchase the anonymous id owns, now or later, belongs to the
/// signed-in user. The checkout service publishes it only after checking a
/// valid token of each id; the projector records the first merge of an
/// anonymous id and ignores any later one (docs/web-first.md).
/// Key: `user-merge:<anonymous id>`.
public struct UserMergeCommand: Codable, Sendable, Hashable {
    /// The `kind` that tells this record apart from a ``SubscriptionCommand``.
    public static let kind = "merge_anonymous_user"

    /// Unique id of the command (UUID string), for idempotent apply.
    public var commandID: String
    /// The anonymous user's id (`anon_…`).
    public var anonymousUserID: String
    /// The signed-in user it merges into.
    public var appUserID: String
    public var requestedAt: Date

    public init(commandID: String, anonymousUserID: String, appUserID: String, requestedAt: Date) {
        self.commandID = commandID
        self.anonymousUserID = anonymousUserID
        self.appUserID = appUserID
        self.requestedAt = requestedAt
    }

    /// The record's topic key: one anonymous id's merges keep their order.
    public var key: String { "user-merge:\(anonymousUserID)" }

    enum CodingKeys: String, CodingKey {
        case kind, commandID = "commandId", anonymousUserID = "anonymousUserId", appUserID = "appUserId", requestedAt
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard try c.decode(String.self, forKey: .kind) == Self.kind else {
            throw DecodingError.dataCorruptedError(forKey: .kind, in: c, debugDescription: "not a \(Self.kind) record")
        }
        commandID = try c.decode(String.self, forKey: .commandID)
        anonymousUserID = try c.decode(String.self, forKey: .anonymousUserID)
        appUserID = try c.decode(String.self, forKey: .appUserID)
        requestedAt = try c.decodeRequiredTimestamp(forKey: .requestedAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Self.kind, forKey: .kind)
        try c.encode(commandID, forKey: .commandID)
        try c.encode(anonymousUserID, forKey: .anonymousUserID)
        try c.encode(appUserID, forKey: .appUserID)
        try c.encodeTimestamp(requestedAt, forKey: .requestedAt)
    }
}

/// Any record of `storefront.commands.v1`: a purchase's command, a user merge, or a grant.
public enum CommandRecord: Sendable, Hashable {
    case purchase(SubscriptionCommand)
    case userMerge(UserMergeCommand)
    /// A promotional entitlement given or taken back (``GrantCommand``).
    case grant(GrantCommand)

    private struct KindOnly: Decodable { var kind: String }

    /// Decodes by the record's `kind`.
    public static func decode(_ bytes: [UInt8]) throws -> CommandRecord {
        switch try RecordCoding.decode(KindOnly.self, from: bytes).kind {
        case UserMergeCommand.kind: .userMerge(try RecordCoding.decode(UserMergeCommand.self, from: bytes))
        case GrantCommand.grantKind, GrantCommand.revokeKind: .grant(try RecordCoding.decode(GrantCommand.self, from: bytes))
        default: .purchase(try RecordCoding.decode(SubscriptionCommand.self, from: bytes))
        }
    }
}
