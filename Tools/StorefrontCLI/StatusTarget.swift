import BillingModel
import Postgres
import ProjectionStore

/// Whom `storefront status` reports on: a customer's email (every app user
/// with that email, and unowned purchases bought with it) or one app user by
/// id, the owner of purchases (Identity in docs/architecture.md).
public enum StatusTarget: Sendable, Equatable {
    case email(String)
    case appUser(String)

    static let usage = "usage: storefront status EMAIL | storefront status --user APP_USER_ID"

    /// `status EMAIL` or `status --user APP_USER_ID`, never both.
    public init(_ arguments: CommandLineArguments) throws(CommandLineArguments.UsageError) {
        let email = arguments.words.dropFirst().first
        switch (email, arguments.options["user"]) {
        case (let email?, nil) where EmailAddress.isValid(email):
            self = .email(email)
        case (nil, let user?) where !user.isEmpty && user != "true":
            self = .appUser(user)
        default:
            throw CommandLineArguments.UsageError(description: Self.usage)
        }
    }

    /// The projection reads to make, one per app user.
    ///
    /// By email, the operator vouches for it, so it counts as verified: each
    /// app user recorded with it, or, when none is, a read by email alone. By
    /// app user id, only what that user owns: the id is the owner, and an
    /// email is no evidence the operator checked (`status EMAIL` shows the
    /// unowned purchases bought with an email).
    func users(in pool: PostgresPool) async throws -> [ProjectionUser] {
        switch self {
        case .email(let email):
            let known = try await pool.query(
                "SELECT app_user_id FROM app_users WHERE lower(email) = lower(\(email)) ORDER BY app_user_id"
            ).map { try $0.decode(String.self) }
            return known.isEmpty
                ? [ProjectionUser(appUserID: "", verifiedEmail: email)] : known.map { ProjectionUser(appUserID: $0, verifiedEmail: email) }
        case .appUser(let id):
            return [ProjectionUser(appUserID: id, verifiedEmail: nil)]
        }
    }
}
