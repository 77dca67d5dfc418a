import AppStoreReports
import Foundation
import Postgres

/// ``AppStoreReportStore`` over the projection's views `app_store_tokens`
/// and `app_store_token_movements` (projection migration 23, read only) and
/// the sender's own `app_store_report_lines` (webhook-sender migration 5).
///
/// Each round reads every token: simple and right while tokens number in
/// the tens of thousands (docs/app-store.md, limits).
public struct PostgresAppStoreReportStore: AppStoreReportStore {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public func tokens() async throws -> [AppStoreTokenState] {
        try await pool.withTransaction { connection in
            var states: [String: AppStoreTokenState] = [:]
            var order: [String] = []
            for row in try await connection.query("SELECT external_purchase_id, token_type, storefront, first_seen FROM app_store_tokens") {
                let (id, type, storefront, firstSeen) = try row.decode((String, String?, String, Date).self)
                order.append(id)
                states[id] = AppStoreTokenState(
                    token: ReportPlan.Token(externalPurchaseID: id, tokenType: type, storefront: storefront, firstSeen: firstSeen), movements: [])
            }
            let movements = try await connection.query(
                """
                SELECT external_purchase_id, line_key, kind, reference_key, at, amount, currency, product, period_start, period_end
                FROM app_store_token_movements
                ORDER BY external_purchase_id, at, line_key
                """)
            for row in movements {
                let (id, key, kind, reference, at, amount, currency, product, periodStart, periodEnd) = try row.decode(
                    (String, String, String, String?, Date, Int64, String, String?, Date?, Date?).self)
                guard let movementKind = Self.kind(kind, reference: reference) else { continue }
                states[id]?.movements.append(
                    PurchaseMovement(
                        key: key, kind: movementKind, at: at, amount: amount, currency: currency, productID: product ?? "", periodStart: periodStart,
                        periodEnd: periodEnd))
            }
            for row in try await connection.query("SELECT external_purchase_id, line_key, state FROM app_store_report_lines") {
                let (id, key, state) = try row.decode((String, String, String).self)
                if state == "accepted" { states[id]?.accepted.insert(key) } else { states[id]?.unanswered.insert(key) }
            }
            return order.compactMap { states[$0] }
        }
    }

    static func kind(_ name: String, reference: String?) -> PurchaseMovement.Kind? {
        switch (name, reference) {
        case ("oneTimeBuy", _): .oneTimeBuy
        case ("subscriptionStart", _): .subscriptionStart
        case ("renewal", let start?): .renewal(start: start)
        case ("refund", let charge?): .refund(of: charge)
        default: nil
        }
    }

    public func insert(_ lines: [AppStoreReportLine]) async throws -> Int {
        guard !lines.isEmpty else { return 0 }
        return try await pool.withTransaction { connection in
            var inserted = 0
            for line in lines {
                inserted += try await connection.execute(
                    """
                    INSERT INTO app_store_report_lines (external_purchase_id, line_key, request_identifier, body)
                    VALUES (\(line.externalPurchaseID), \(line.key), \(line.requestIdentifier)::uuid, \(String(decoding: line.body, as: UTF8.self)))
                    ON CONFLICT (external_purchase_id, line_key) DO NOTHING
                    """)
            }
            return inserted
        }
    }

    public func claimDue(limit: Int, lease: Duration, now: Date) async throws -> [AppStoreReportLine] {
        let leasedUntil = now.addingTimeInterval(Double(lease.components.seconds))
        let rows = try await pool.query(
            """
            UPDATE app_store_report_lines AS l SET next_attempt_at = \(leasedUntil)
            FROM (
                SELECT external_purchase_id, line_key FROM app_store_report_lines
                WHERE state = 'pending' AND next_attempt_at <= \(now)
                ORDER BY next_attempt_at
                LIMIT \(limit)
                FOR UPDATE SKIP LOCKED) AS due
            WHERE l.external_purchase_id = due.external_purchase_id AND l.line_key = due.line_key
            RETURNING l.external_purchase_id, l.line_key, l.request_identifier::text, l.body, l.attempts
            """)
        return try rows.map { row in
            let (id, key, request, body, attempts) = try row.decode((String, String, String, String, Int32).self)
            return AppStoreReportLine(externalPurchaseID: id, key: key, requestIdentifier: request, body: Array(body.utf8), attempts: Int(attempts))
        }
    }

    public func record(_ line: AppStoreReportLine, _ outcome: AppStoreReportLine.Outcome, now: Date) async throws {
        let (state, next, error): (String, Date, String?) =
            switch outcome {
            case .accepted: ("accepted", now, nil)
            case .retry(let at, let reason): ("pending", at, reason)
            case .dead(let reason): ("dead", now, reason)
            }
        _ = try await pool.execute(
            """
            UPDATE app_store_report_lines
            SET state = \(state), attempts = attempts + 1, next_attempt_at = \(next), last_error = \(error),
                answered_at = CASE WHEN \(state) = 'pending' THEN NULL ELSE \(now) END
            WHERE external_purchase_id = \(line.externalPurchaseID) AND line_key = \(line.key) AND state = 'pending'
            """)
    }

    public func oldestPending() async throws -> Date? {
        let rows = try await pool.query("SELECT min(created_at) FROM app_store_report_lines WHERE state = 'pending'")
        guard let row = rows.first else { return nil }
        return try row.decode(Date?.self)
    }
}
