import AppStoreReports
import Foundation

/// What the reporter keeps and reads (``PostgresAppStoreReportStore``; a
/// fake in the unit tests): the tokens with their movements, and the lines
/// already made for them with their state.
public protocol AppStoreReportStore: Sendable {
    /// Every token, its movements (oldest first) and the keys of its kept lines by state.
    func tokens() async throws -> [AppStoreTokenState]
    /// Keeps new lines, each with its request identifier and body, before any
    /// is sent; a line already kept (another replica planned it first) is left as it is.
    /// - Returns: how many were new.
    func insert(_ lines: [AppStoreReportLine]) async throws -> Int
    /// Up to `limit` pending lines due at `now`, each leased for `lease` (moved past it, so another replica leaves it).
    func claimDue(limit: Int, lease: Duration, now: Date) async throws -> [AppStoreReportLine]
    /// What became of one send.
    func record(_ line: AppStoreReportLine, _ outcome: AppStoreReportLine.Outcome, now: Date) async throws
    /// When the oldest pending line was made; nil when none waits.
    func oldestPending() async throws -> Date?
}

/// A token as the projection has it, with what was already made of it.
public struct AppStoreTokenState: Sendable, Equatable {
    public var token: ReportPlan.Token
    public var movements: [PurchaseMovement]
    /// Line keys Apple accepted.
    public var accepted: Set<String>
    /// Line keys made and not accepted: waiting to be sent, or dead (Apple refused them; they are not made again).
    public var unanswered: Set<String>

    public init(token: ReportPlan.Token, movements: [PurchaseMovement], accepted: Set<String> = [], unanswered: Set<String> = []) {
        self.token = token
        self.movements = movements
        self.accepted = accepted
        self.unanswered = unanswered
    }
}

/// One report, as kept: it is sent exactly as its body says, every time.
public struct AppStoreReportLine: Sendable, Equatable {
    public var externalPurchaseID: String
    public var key: String
    public var requestIdentifier: String
    /// The report's JSON.
    public var body: [UInt8]
    /// Sends made so far (before this one).
    public var attempts: Int

    public init(externalPurchaseID: String, key: String, requestIdentifier: String, body: [UInt8], attempts: Int = 0) {
        self.externalPurchaseID = externalPurchaseID
        self.key = key
        self.requestIdentifier = requestIdentifier
        self.body = body
        self.attempts = attempts
    }

    public enum Outcome: Sendable, Equatable {
        case accepted
        case retry(at: Date, reason: String)
        case dead(reason: String)
    }
}
