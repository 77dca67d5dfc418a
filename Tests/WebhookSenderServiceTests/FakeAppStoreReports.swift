import AppStoreReports
import Foundation
import Synchronization
@testable import WebhookSenderService

/// The reporter's tables in memory, with the same rules as the Postgres
/// store: one line per (token, key), a claim leases, a record moves state.
final class FakeAppStoreReportStore: AppStoreReportStore {
    struct Row: Sendable {
        var line: AppStoreReportLine
        var state = "pending"
        var nextAttemptAt: Date
        var lastError: String?
        var createdAt: Date
    }

    let tokenStates: Mutex<[AppStoreTokenState]>
    let rows = Mutex<[Row]>([])

    init(_ tokens: [AppStoreTokenState]) {
        tokenStates = Mutex(tokens)
    }

    func setMovements(_ movements: [PurchaseMovement], of token: String) {
        tokenStates.withLock { states in
            for index in states.indices where states[index].token.externalPurchaseID == token { states[index].movements = movements }
        }
    }

    func tokens() async throws -> [AppStoreTokenState] {
        let kept = rows.withLock { $0 }
        return tokenStates.withLock { $0 }.map { state in
            var state = state
            for row in kept where row.line.externalPurchaseID == state.token.externalPurchaseID {
                if row.state == "accepted" { state.accepted.insert(row.line.key) } else { state.unanswered.insert(row.line.key) }
            }
            return state
        }
    }

    func insert(_ lines: [AppStoreReportLine]) async throws -> Int {
        rows.withLock { rows in
            var inserted = 0
            for line in lines where !rows.contains(where: { $0.line.externalPurchaseID == line.externalPurchaseID && $0.line.key == line.key }) {
                rows.append(Row(line: line, nextAttemptAt: .distantPast, createdAt: Date()))
                inserted += 1
            }
            return inserted
        }
    }

    func claimDue(limit: Int, lease: Duration, now: Date) async throws -> [AppStoreReportLine] {
        rows.withLock { rows in
            var claimed: [AppStoreReportLine] = []
            for index in rows.indices where rows[index].state == "pending" && rows[index].nextAttemptAt <= now && claimed.count < limit {
                rows[index].nextAttemptAt = now.addingTimeInterval(Double(lease.components.seconds))
                claimed.append(rows[index].line)
            }
            return claimed
        }
    }

    func record(_ line: AppStoreReportLine, _ outcome: AppStoreReportLine.Outcome, now: Date) async throws {
        rows.withLock { rows in
            guard let index = rows.firstIndex(where: { $0.line.externalPurchaseID == line.externalPurchaseID && $0.line.key == line.key }),
                rows[index].state == "pending"
            else { return }
            rows[index].line.attempts += 1
            switch outcome {
            case .accepted: rows[index].state = "accepted"
            case .retry(let at, let reason): (rows[index].nextAttemptAt, rows[index].lastError) = (at, reason)
            case .dead(let reason): (rows[index].state, rows[index].lastError) = ("dead", reason)
            }
        }
    }

    func oldestPending() async throws -> Date? {
        rows.withLock { $0.filter { $0.state == "pending" }.map(\.createdAt).min() }
    }

    /// Whether `report`'s line was kept, with the same request identifier, before it was sent.
    func holds(_ report: ExternalPurchaseReport) -> Bool {
        rows.withLock { rows in rows.contains { $0.line.requestIdentifier == report.requestIdentifier } }
    }
}

/// Apple, scripted: answers in turn (then `accepted`), and every report it was sent.
final class ScriptedApple: AppStoreReportSending {
    let answers: Mutex<[AppStoreReportClient.Outcome]>
    let sent = Mutex<[ExternalPurchaseReport]>([])
    let store: FakeAppStoreReportStore
    let keptBeforeSend = Mutex(true)

    init(_ answers: [AppStoreReportClient.Outcome] = [], store: FakeAppStoreReportStore) {
        self.answers = Mutex(answers)
        self.store = store
    }

    func deliver(_ report: ExternalPurchaseReport) async -> AppStoreReportClient.Outcome {
        if !store.holds(report) { keptBeforeSend.withLock { $0 = false } }
        sent.withLock { $0.append(report) }
        return answers.withLock { $0.isEmpty ? .accepted : $0.removeFirst() }
    }

    var reports: [ExternalPurchaseReport] { sent.withLock { $0 } }
}
