import Foundation

/// The verified claims of a JWT: the registered ones typed, and all of them raw.
public struct JWTClaims: Sendable, Equatable {
    /// `sub`: the subject (for Storefront, the app user id).
    public var subject: String?
    /// `email`, when the issuer includes it.
    public var email: String?
    /// `email_verified` (OpenID Connect): true only when the claim is JSON
    /// `true` or the string `"true"` (some identity providers, such as Amazon
    /// Cognito, send it as a string). Absent, `false`, `null` or any other
    /// value reads as false; the claim never makes a token malformed.
    public var emailVerified: Bool
    /// `iss`: who issued the token.
    public var issuer: String?
    /// `aud`: the intended audiences (a single string becomes one element).
    public var audience: [String]
    /// `exp`: when the token stops being valid.
    public var expiresAt: Date?
    /// `nbf`: when the token starts being valid.
    public var notBefore: Date?
    /// `iat`: when the token was issued.
    public var issuedAt: Date?
    /// Every claim as sent, including the ones above.
    public var raw: [String: JOSEValue]

    /// Reads the registered claims out of `raw`.
    /// - Throws: ``JWTError/malformed(_:)`` when a registered claim has the wrong JSON type.
    public init(raw: [String: JOSEValue]) throws(JWTError) {
        self.raw = raw
        subject = try Self.string(raw, "sub")
        email = try Self.string(raw, "email")
        emailVerified = Self.flag(raw["email_verified"])
        issuer = try Self.string(raw, "iss")
        switch raw["aud"] {
        case nil, .null?:
            audience = []
        case .string(let value)?:
            audience = [value]
        case .array(let values)?:
            audience = try values.map { value throws(JWTError) in
                guard let string = value.stringValue else { throw .malformed("aud must hold strings") }
                return string
            }
        default:
            throw .malformed("aud must be a string or an array of strings")
        }
        expiresAt = try Self.date(raw, "exp")
        notBefore = try Self.date(raw, "nbf")
        issuedAt = try Self.date(raw, "iat")
    }

    /// The raw value of any claim.
    public subscript(claim: String) -> JOSEValue? { raw[claim] }

    private static func string(_ raw: [String: JOSEValue], _ name: String) throws(JWTError) -> String? {
        switch raw[name] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw .malformed("\(name) must be a string")
        }
    }

    /// JSON `true` or the exact string `"true"`; anything else is false.
    static func flag(_ value: JOSEValue?) -> Bool {
        switch value {
        case .bool(true)?, .string("true")?: true
        default: false
        }
    }

    private static func date(_ raw: [String: JOSEValue], _ name: String) throws(JWTError) -> Date? {
        switch raw[name] {
        case nil, .null?: return nil
        case let value?:
            guard let seconds = value.numberValue, seconds.isFinite else { throw .malformed("\(name) must be a number") }
            return Date(timeIntervalSince1970: seconds)
        }
    }
}
