import Foundation

/// The app user a projection read is for: the token's subject and, as the
/// fallback link for purchases nobody owns, the token's VERIFIED email.
///
/// A purchase belongs to the user when:
/// 1. its owner (`app_user_id`, from `purchase_owners`) is the user; a
///    purchase with an owner is never anyone else's, whatever its emails or
///    provider customer say;
/// 2. it has no owner, the user's verified email equals its buyer email
///    (case-insensitively), and it was first seen at least
///    ``SubscriptionStatusReader/claimDelay`` ago (a Paystack subscription
///    learns its owner from a charge that may arrive a moment later). The
///    checkout service then claims it for the user for good.
public struct ProjectionUser: Sendable, Hashable {
    /// The JWT subject.
    public var appUserID: String
    /// The token's email claim when verified; nil disables the email fallback.
    public var verifiedEmail: String?

    public init(appUserID: String, verifiedEmail: String?) {
        self.appUserID = appUserID
        let trimmed = verifiedEmail?.trimmingCharacters(in: .whitespacesAndNewlines)
        self.verifiedEmail = (trimmed?.isEmpty ?? true) ? nil : trimmed
    }
}
