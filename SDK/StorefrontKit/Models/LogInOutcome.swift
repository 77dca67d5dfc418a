import Foundation

/// What ``StorefrontClient/logIn(appUserID:tokenProvider:)`` did with the
/// anonymous user's purchases. The client acts for the signed-in user in every case.
public enum LogInOutcome: Hashable, Sendable, CustomStringConvertible {
    /// They moved to the signed-in user (`merged`).
    case merged
    /// They had moved to this user already (`already_merged`: the same sign-in again).
    case alreadyMerged
    /// The anonymous user had been merged into another signed-in user (409
    /// `already_merged_elsewhere`), whose purchases they stay; this user
    /// gets none of them.
    case alreadyMergedElsewhere
    /// There was no anonymous user to merge: the client was signed in
    /// already, or the anonymous user was never created.
    case nothingToMerge

    /// `merged`, `alreadyMerged`, `alreadyMergedElsewhere` or `nothingToMerge`.
    public var description: String {
        switch self {
        case .merged: "merged"
        case .alreadyMerged: "alreadyMerged"
        case .alreadyMergedElsewhere: "alreadyMergedElsewhere"
        case .nothingToMerge: "nothingToMerge"
        }
    }
}

/// `{"anonymousToken":"…"}`.
struct AliasRequestBody: Encodable {
    var anonymousToken: String
}

/// `POST /api/users/alias`'s answer: the outcome, or the error code.
struct AliasAnswer: Decodable {
    var outcome: String?
    var code: String?
}
