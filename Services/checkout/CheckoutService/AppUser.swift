import Foundation

/// Who is calling: the verified token's user and email claim.
public struct AppUser: Sendable, Hashable {
    /// The app user id: the token's subject, prefixed by its issuer's prefix
    /// when several issuers are configured (``IssuerUserIDs``); a Storefront
    /// anonymous id; or, with auth disabled, the email.
    public var id: String
    /// The token's `email` claim, if it has one. Not necessarily verified:
    /// use ``verifiedEmail`` wherever the email links or finds rows.
    public var email: String?
    /// Whether ``email`` is known to belong to the user: the token's
    /// `email_verified` claim said so, or `AUTH_EMAILS_ARE_VERIFIED=true`
    /// (an identity provider that only issues verified emails). Always false
    /// with `AUTH_DISABLED` (the email is whatever the caller typed).
    public var emailVerified: Bool
    /// A Storefront anonymous user (`POST /api/anonymous`), not one of the
    /// identity provider's: it may buy and redeem, and be merged into a
    /// signed-in user once (`POST /api/users/alias`).
    public var isAnonymous: Bool

    public init(id: String, email: String?, emailVerified: Bool = false, isAnonymous: Bool = false) {
        self.id = id
        self.email = email
        self.emailVerified = emailVerified
        self.isAnonymous = isAnonymous
    }

    /// The normalized (trimmed, lower-cased) email, only when the token has
    /// a non-empty email AND it is verified; otherwise nil. This is the only
    /// email that may link purchases without an owner to this user (docs/architecture.md,
    /// "Identity and ownership": the email fallback).
    public var verifiedEmail: String? {
        guard emailVerified, let email else { return nil }
        let normalized = Self.normalize(email)
        return normalized.isEmpty ? nil : normalized
    }

    /// Whether `other` is the user's *verified* email (``verifiedEmail``),
    /// ignoring case and surrounding whitespace: false whenever the token's
    /// email is missing or unverified, whatever `other` is.
    public func isVerifiedEmail(_ other: String) -> Bool {
        guard let verified = verifiedEmail else { return false }
        return Self.normalize(other) == verified
    }

    /// Whether `other` is the user's email, ignoring case and surrounding
    /// whitespace. A token without an email claim has nothing to contradict,
    /// so any address matches here; such an address is then only a checkout
    /// pre-fill. Matching says nothing about verification, and a token
    /// without email never matches anything *by email*: rows are found by
    /// email only through ``verifiedEmail``, which is nil for it.
    public func emailMatches(_ other: String) -> Bool {
        guard let email else { return true }
        return Self.normalize(email) == Self.normalize(other)
    }

    static func normalize(_ email: String) -> String {
        email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }
}
