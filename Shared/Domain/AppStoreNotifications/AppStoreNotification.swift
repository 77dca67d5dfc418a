import Foundation

/// One App Store Server Notification V2, decoded from its (verified) JWS
/// payload, `responseBodyV2DecodedPayload`. Only the fields Storefront acts on
/// are typed; the whole payload stays in ``payload`` for the record.
public struct AppStoreNotification: Sendable, Equatable {
    /// Apple's environments, as `data.environment` spells them.
    public enum Environment: String, Sendable, Codable {
        case production = "Production"
        case sandbox = "Sandbox"
    }

    /// `notificationType`, e.g. `EXTERNAL_PURCHASE_TOKEN`, `TEST`.
    public var notificationType: String
    /// `subtype`, e.g. `UNREPORTED`, `CREATED`, `ACTIVE_TOKEN_REMINDER`; nil when absent.
    public var subtype: String?
    /// `notificationUUID`: the same for Apple's retries of one notification.
    public var notificationUUID: String
    /// `signedDate`, UNIX milliseconds: when Apple signed it.
    public var signedDate: Int64
    /// The app it is for: `data.bundleId`, `summary.bundleId` or `externalPurchaseToken.bundleId`.
    public var bundleID: String?
    /// `data.environment`, or for a token the `SANDBOX` prefix of its id (as Apple's own library decides).
    public var environment: Environment?
    /// `externalPurchaseToken`, present for `EXTERNAL_PURCHASE_TOKEN` only.
    public var externalPurchaseToken: ExternalPurchaseTokenInfo?
    /// The decoded payload's JSON bytes, as signed.
    public var payload: [UInt8]

    /// The `externalPurchaseToken` object (the token's own Base64URL JSON).
    public struct ExternalPurchaseTokenInfo: Sendable, Equatable, Codable {
        public var externalPurchaseId: String
        /// UNIX milliseconds.
        public var tokenCreationDate: Int64?
        public var appAppleId: Int64?
        public var bundleId: String?
        /// Custom link tokens only: `ACQUISITION`, `SERVICES`.
        public var tokenType: String?
        public var tokenExpirationDate: Int64?

        public init(
            externalPurchaseId: String, tokenCreationDate: Int64? = nil, appAppleId: Int64? = nil, bundleId: String? = nil,
            tokenType: String? = nil, tokenExpirationDate: Int64? = nil
        ) {
            self.externalPurchaseId = externalPurchaseId
            self.tokenCreationDate = tokenCreationDate
            self.appAppleId = appAppleId
            self.bundleId = bundleId
            self.tokenType = tokenType
            self.tokenExpirationDate = tokenExpirationDate
        }

        /// Apple's sandbox tokens' ids start `SANDBOX`.
        public var isSandbox: Bool { externalPurchaseId.hasPrefix("SANDBOX") }
    }

    /// The longest id kept (UUIDs and Apple's token ids are far shorter).
    static let maximumIDLength = 200

    /// Decodes a payload's JSON.
    /// - Throws: ``AppStoreNotificationError/malformedPayload(_:)`` when it is not
    ///   a notification: no type, no UUID, no signing date, an empty or overlong id.
    public init(payload: [UInt8]) throws(AppStoreNotificationError) {
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: Data(payload))
        } catch {
            throw .malformedPayload("not a V2 notification payload")
        }
        guard !wire.notificationType.isEmpty, !wire.notificationUUID.isEmpty, wire.notificationUUID.utf8.count <= Self.maximumIDLength else {
            throw .malformedPayload("notificationType or notificationUUID missing")
        }
        if let token = wire.externalPurchaseToken, token.externalPurchaseId.isEmpty || token.externalPurchaseId.utf8.count > Self.maximumIDLength {
            throw .malformedPayload("externalPurchaseId empty or too long")
        }
        notificationType = wire.notificationType
        subtype = wire.subtype
        notificationUUID = wire.notificationUUID
        signedDate = wire.signedDate
        externalPurchaseToken = wire.externalPurchaseToken
        self.payload = payload
        if let data = wire.data ?? wire.summary {
            bundleID = data.bundleId
            environment = data.environment.flatMap(Environment.init(rawValue:))
        } else if let token = wire.externalPurchaseToken {
            bundleID = token.bundleId
            environment = token.isSandbox ? .sandbox : .production
        }
    }

    /// The payload's shape; unknown members are ignored.
    private struct Wire: Decodable {
        var notificationType: String
        var subtype: String?
        var notificationUUID: String
        var signedDate: Int64
        var data: AppData?
        var summary: AppData?
        var externalPurchaseToken: ExternalPurchaseTokenInfo?
    }

    /// The app fields `data` and `summary` share.
    private struct AppData: Decodable {
        var bundleId: String?
        var environment: String?
    }
}
