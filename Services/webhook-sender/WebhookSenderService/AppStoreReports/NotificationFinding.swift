/// What an App Store notification says about Storefront's reports, and what
/// to do about it: a pure decision over what the store knows of the token
/// (``decide(type:subtype:tokenKnown:lineStates:)``), so every case is tested
/// without a database.
public enum NotificationFinding: String, Sendable, CaseIterable {
    /// Not a reminder about an unreported token (`CREATED`, `ACTIVE_TOKEN_REMINDER`, `TEST`, …): kept, nothing to do.
    case recorded
    /// `UNREPORTED` for a token Storefront never saw (no checkout carried it):
    /// it is reported to Apple as `UNRECOGNIZED_TOKEN`, as Apple asks, and
    /// surfaced (metric, error log, alert): an app sent the buyer out without
    /// telling the checkout, or the token came from elsewhere.
    case unknownToken = "unknown_token"
    /// `UNREPORTED` for a token whose lines wait for a send (Apple down, a key
    /// refused): they are sent at once instead of at their next backoff.
    case retried
    /// `UNREPORTED` for a token with a line Apple refused (dead): flagged for
    /// the operator, since the same line is never made again by itself.
    case refused
    /// `UNREPORTED` for a known token with no line yet (a token that bought
    /// nothing, younger than `APP_STORE_REPORTS_NO_PURCHASE_AFTER`): left to
    /// the reporter's next round, logged.
    case notYetReported = "not_yet_reported"
    /// `UNREPORTED` although Apple accepted every line: the notice crossed
    /// the report. Kept; nothing to do.
    case alreadyAccepted = "already_accepted"

    /// The notification type and subtype this decision reads.
    public static let externalPurchaseToken = "EXTERNAL_PURCHASE_TOKEN"
    public static let unreported = "UNREPORTED"

    /// Decides a notification's finding.
    /// - Parameters:
    ///   - tokenKnown: a checkout carried the token (it is in `app_store_tokens`).
    ///   - lineStates: the states of the token's lines (`pending`, `accepted`, `dead`).
    public static func decide(type: String, subtype: String?, tokenKnown: Bool, lineStates: [String]) -> NotificationFinding {
        guard type == externalPurchaseToken, subtype == unreported else { return .recorded }
        if lineStates.contains("dead") { return .refused }
        if lineStates.contains("pending") { return .retried }
        if !lineStates.isEmpty { return .alreadyAccepted }
        return tokenKnown ? .notYetReported : .unknownToken
    }

    /// The line key of an unknown token's `UNRECOGNIZED_TOKEN` report: one per token, ever.
    public static func unrecognizedKey(_ externalPurchaseID: String) -> String { "unrecognized:\(externalPurchaseID)" }
}
