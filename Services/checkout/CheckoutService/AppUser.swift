import Foundation

/// Who is calling: the verified token's subject and email claim.
public struct AppUser: Sendable, Hashable {
    /// The JWT subject (app user id).
    public var id: String
    /// The token's `email` claim, if it has one.
    public var email: String?

    public init(id: String, email: String?) {
        self.id = id
        self.email = email
    }

    /// Whether `other` is the user's email, ignoring case and surrounding
    /// whitespace. A token without an email claim has nothing to contradict,
    /// so any address matches; it is then only a checkout pre-fill and is never
    /// used to find rows.
    public func emailMatches(_ other: String) -> Bool {
        guard let email else { return true }
        return Self.normalize(email) == Self.normalize(other)
    }

    static func normalize(_ email: String) -> String {
        email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }
}
