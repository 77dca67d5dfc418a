import Foundation

/// The app user a projection read is for: the token's subject and, as the
/// fallback link for rows the projector could not tie to an app user, the
/// token's email.
///
/// A row belongs to the user when, in this order of precedence:
/// 1. its own `app_user_id` is the user's id (a row naming another user is never theirs);
/// 2. it has no app user, and `provider_customers` links its customer to the user;
/// 3. it has neither, and its customer email equals the user's email (case-insensitively).
public struct ProjectionUser: Sendable, Hashable {
    /// The JWT subject.
    public var appUserID: String
    /// The token's `email` claim, if any; nil disables the email fallback.
    public var email: String?

    public init(appUserID: String, email: String?) {
        self.appUserID = appUserID
        let trimmed = email?.trimmingCharacters(in: .whitespacesAndNewlines)
        self.email = (trimmed?.isEmpty ?? true) ? nil : trimmed
    }
}
