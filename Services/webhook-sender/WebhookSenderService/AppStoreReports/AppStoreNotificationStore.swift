import AppStoreNotifications
import AppStoreReports
import Foundation
import Postgres

/// Keeps App Store notifications (`app_store_notifications`, webhook-sender
/// migration 6) and acts on what they say about the reports
/// (``NotificationFinding``), in one transaction per batch: a notification
/// already kept (Apple's retry, a redelivered record) is passed over, so
/// each is acted on once.
///
/// The actions touch only `app_store_report_lines`: pending lines of the
/// token are made due now (``NotificationFinding/retried``); an unknown
/// token gets one `UNRECOGNIZED_TOKEN` line (``NotificationFinding/unknownToken``),
/// which the reporter sends like any other.
public struct AppStoreNotificationStore: Sendable {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Records `notifications`; returns each new one with its finding (duplicates are left out).
    public func record(_ notifications: [AppStoreNotification], now: Date) async throws -> [(AppStoreNotification, NotificationFinding)] {
        guard !notifications.isEmpty else { return [] }
        return try await pool.withTransaction { connection in
            var recorded: [(AppStoreNotification, NotificationFinding)] = []
            for notification in notifications {
                let token = notification.externalPurchaseToken?.externalPurchaseId
                var known = false, states: [String] = []
                if let token {
                    known = !(try await connection.query("SELECT 1 FROM app_store_tokens WHERE external_purchase_id = \(token) LIMIT 1")).isEmpty
                    states = try await connection.query("SELECT state FROM app_store_report_lines WHERE external_purchase_id = \(token)").map {
                        try $0.decode(String.self)
                    }
                }
                let finding = NotificationFinding.decide(
                    type: notification.notificationType, subtype: notification.subtype, tokenKnown: known, lineStates: states)
                let signedAt = Date(timeIntervalSince1970: Double(notification.signedDate) / 1000)
                let inserted = try await connection.execute(
                    """
                    INSERT INTO app_store_notifications
                        (notification_uuid, notification_type, subtype, external_purchase_id, environment, signed_at, finding, payload)
                    VALUES (\(notification.notificationUUID), \(notification.notificationType), \(notification.subtype), \(token),
                            \(notification.environment?.rawValue), \(signedAt), \(finding.rawValue), \(String(decoding: notification.payload, as: UTF8.self)))
                    ON CONFLICT (notification_uuid) DO NOTHING
                    """)
                guard inserted == 1, let token else {
                    if inserted == 1 { recorded.append((notification, finding)) }
                    continue
                }
                switch finding {
                case .retried:
                    _ = try await connection.execute(
                        """
                        UPDATE app_store_report_lines SET next_attempt_at = \(now)
                        WHERE external_purchase_id = \(token) AND state = 'pending' AND next_attempt_at > \(now)
                        """)
                case .unknownToken:
                    let line = try Self.unrecognizedLine(token, tokenType: notification.externalPurchaseToken?.tokenType)
                    _ = try await connection.execute(
                        """
                        INSERT INTO app_store_report_lines (external_purchase_id, line_key, request_identifier, body)
                        VALUES (\(line.externalPurchaseID), \(line.key), \(line.requestIdentifier)::uuid, \(String(decoding: line.body, as: UTF8.self)))
                        ON CONFLICT (external_purchase_id, line_key) DO NOTHING
                        """)
                case .recorded, .refused, .notYetReported, .alreadyAccepted:
                    break
                }
                recorded.append((notification, finding))
            }
            return recorded
        }
    }

    /// The `UNRECOGNIZED_TOKEN` report of a token no checkout carried, with a fresh request identifier.
    static func unrecognizedLine(_ token: String, tokenType: String?) throws -> AppStoreReportLine {
        let id = UUID().uuidString.lowercased()
        let report = ExternalPurchaseReport(
            requestIdentifier: id, externalPurchaseId: token, tokenType: tokenType, status: .unrecognizedToken, lineItems: nil)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return AppStoreReportLine(
            externalPurchaseID: token, key: NotificationFinding.unrecognizedKey(token), requestIdentifier: id, body: Array(try encoder.encode(report))
        )
    }
}
