import Foundation
import JSONCodec

/// An external purchase token as StoreKit hands it to the app
/// (`ExternalPurchaseCustomLink.Token.value` and the other External Purchase
/// APIs): Base64URL-encoded JSON, decoded here and its shape checked. Apple
/// documents the fields in App Store Server Notifications' `externalPurchaseToken`:
/// `externalPurchaseId`, `tokenCreationDate` and `tokenExpirationDate` (UNIX
/// milliseconds), `appAppleId`, `bundleId`, `tokenType`. Only its
/// `externalPurchaseId` is ever reported to Apple; the raw token is not kept.
public struct ExternalPurchaseToken: Sendable, Hashable {
    /// The custom link token types `token(for:)` takes.
    public enum TokenType: String, Sendable, Hashable, Codable, CaseIterable {
        case acquisition = "ACQUISITION"
        case services = "SERVICES"
        case inApp = "IN_APP"
        case linkOut = "LINK_OUT"
    }

    /// Identifies the token in reports to Apple; starts with `SANDBOX` for
    /// tokens of Apple's sandbox environment.
    public var externalPurchaseID: String
    public var appAppleID: Int64
    public var bundleID: String
    public var createdAt: Date
    /// Custom link tokens only.
    public var expiresAt: Date?
    /// Custom link tokens only.
    public var tokenType: TokenType?

    /// A token of Apple's sandbox environment.
    public var isSandbox: Bool { externalPurchaseID.hasPrefix("SANDBOX") }

    /// Longest token accepted (real ones are a few hundred characters).
    public static let maximumLength = 4096

    /// Why a token was refused, each a stable code.
    public enum Invalid: String, Error, Sendable, CustomStringConvertible {
        case tooLong = "too_long"
        case notBase64URL = "not_base64url"
        case notJSON = "not_json"
        case missingFields = "missing_fields"
        case malformedField = "malformed_field"

        public var description: String {
            switch self {
            case .tooLong: "longer than \(ExternalPurchaseToken.maximumLength) characters"
            case .notBase64URL: "not Base64URL"
            case .notJSON: "does not decode to a JSON object"
            case .missingFields: "lacks externalPurchaseId, tokenCreationDate, appAppleId or bundleId"
            case .malformedField: "has a field of the wrong shape"
            }
        }
    }

    public init(externalPurchaseID: String, appAppleID: Int64, bundleID: String, createdAt: Date, expiresAt: Date? = nil, tokenType: TokenType? = nil)
    {
        self.externalPurchaseID = externalPurchaseID
        self.appAppleID = appAppleID
        self.bundleID = bundleID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.tokenType = tokenType
    }

    /// Decodes and checks a token's value.
    public init(value: String) throws(Invalid) {
        guard value.utf8.count <= Self.maximumLength else { throw .tooLong }
        guard let data = Self.base64URLDecoded(value) else { throw .notBase64URL }
        guard case .object(let object)? = try? JSONValue.parse(Array(data)) else { throw .notJSON }
        guard let id = object["externalPurchaseId"], let created = object["tokenCreationDate"], let app = object["appAppleId"],
            let bundle = object["bundleId"]
        else { throw .missingFields }
        // Integers only where Apple sends UNIX milliseconds and ids: a fraction, a string or a boolean there is malformed.
        guard case .string(let id) = id, Self.isIdentifier(id), case .string(let bundle) = bundle, Self.isBundleID(bundle),
            case .integer(let app) = app, app > 0, case .integer(let created) = created, created > 0
        else { throw .malformedField }
        var expiresAt: Date?
        if let expires = object["tokenExpirationDate"] {
            guard case .integer(let milliseconds) = expires, milliseconds > 0 else { throw .malformedField }
            expiresAt = Self.date(milliseconds: milliseconds)
        }
        var type: TokenType?
        if let name = object["tokenType"] {
            guard case .string(let name) = name, let known = TokenType(rawValue: name) else { throw .malformedField }
            type = known
        }
        self.init(
            externalPurchaseID: id, appAppleID: app, bundleID: bundle, createdAt: Self.date(milliseconds: created), expiresAt: expiresAt,
            tokenType: type)
    }

    /// The token's value as StoreKit would give it (for tests and the sandbox).
    public var value: String {
        let wire = Wire(
            externalPurchaseId: externalPurchaseID, tokenCreationDate: Self.milliseconds(createdAt), appAppleId: appAppleID, bundleId: bundleID,
            tokenExpirationDate: expiresAt.map(Self.milliseconds), tokenType: tokenType?.rawValue)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = (try? encoder.encode(wire)) ?? Data()
        return data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The JSON inside a token, as ``value`` writes it.
    private struct Wire: Encodable {
        var externalPurchaseId: String
        var tokenCreationDate: Int64
        var appAppleId: Int64
        var bundleId: String
        var tokenExpirationDate: Int64?
        var tokenType: String?
    }

    private static func date(milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
    private static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// Base64URL with or without padding (plain Base64 too: some clients re-encode).
    static func base64URLDecoded(_ text: String) -> Data? {
        guard !text.isEmpty, text.utf8.allSatisfy({ isBase64Byte($0) }) else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard = standard.trimmingCharacters(in: CharacterSet(charactersIn: "="))
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        return Data(base64Encoded: standard)
    }

    private static func isBase64Byte(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || [0x2B, 0x2F, 0x2D, 0x5F, 0x3D].contains(byte)
    }

    /// 1–128 printable ASCII characters: what the id is reported and stored as.
    private static func isIdentifier(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 128 && text.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// Reverse-DNS: 1–155 of letters, digits, `.` and `-`.
    public static func isBundleID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 155
            && text.utf8.allSatisfy {
                (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2E || $0 == 0x2D
            }
    }
}
