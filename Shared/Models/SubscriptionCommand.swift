import Foundation

/// The value of a `storefront.commands.v1` record: something an app user asked
/// to be done to a subscription, recorded after the provider accepted it.
/// Key: ``TopicKey/command(_:subscriptionID:)``.
public struct SubscriptionCommand: Codable, Sendable, Hashable {
    /// What was requested. Unknown kinds from newer producers decode as `.other`.
    public enum Kind: Codable, Sendable, Hashable, RawRepresentable {
        case cancelRequested
        case resumeRequested
        case other(String)

        public init(rawValue: String) {
            switch rawValue {
            case "cancel_requested": self = .cancelRequested
            case "resume_requested": self = .resumeRequested
            default: self = .other(rawValue)
            }
        }

        public var rawValue: String {
            switch self {
            case .cancelRequested: "cancel_requested"
            case .resumeRequested: "resume_requested"
            case .other(let name): name
            }
        }

        public init(from decoder: any Decoder) throws { self.init(rawValue: try decoder.singleValueContainer().decode(String.self)) }
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
    }

    /// Unique id of the command (UUID string), for idempotent apply.
    public var commandID: String
    public var kind: Kind
    public var provider: Provider
    /// Provider subscription id (Lemon Squeezy id, Paystack `SUB_…` code).
    public var subscriptionID: String
    public var appUserID: String
    public var requestedAt: Date

    enum CodingKeys: String, CodingKey {
        case commandID = "commandId", kind, provider, subscriptionID = "subscriptionId", appUserID = "appUserId", requestedAt
    }

    public init(commandID: String, kind: Kind, provider: Provider, subscriptionID: String, appUserID: String, requestedAt: Date) {
        self.commandID = commandID
        self.kind = kind
        self.provider = provider
        self.subscriptionID = subscriptionID
        self.appUserID = appUserID
        self.requestedAt = requestedAt
    }

    /// The record's topic key.
    public var key: String { TopicKey.command(provider, subscriptionID: subscriptionID) }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        commandID = try c.decode(String.self, forKey: .commandID)
        kind = try c.decode(Kind.self, forKey: .kind)
        provider = try c.decode(Provider.self, forKey: .provider)
        subscriptionID = try c.decode(String.self, forKey: .subscriptionID)
        appUserID = try c.decode(String.self, forKey: .appUserID)
        requestedAt = try c.decodeRequiredTimestamp(forKey: .requestedAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(commandID, forKey: .commandID)
        try c.encode(kind, forKey: .kind)
        try c.encode(provider, forKey: .provider)
        try c.encode(subscriptionID, forKey: .subscriptionID)
        try c.encode(appUserID, forKey: .appUserID)
        try c.encodeTimestamp(requestedAt, forKey: .requestedAt)
    }
}
