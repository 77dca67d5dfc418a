import Foundation
import Postgres
import Retention
import ServiceSettings

// What the webhook-sender prunes of app_store_report_lines (docs/retention.md).
// The reporter remakes, with a new request identifier, every line the
// projection's views show and the table does not hold; pruning a sent line
// alone would send it again. So lines go only a token at a time, once none of
// them waits and the newest is older than the retention, and the token is
// recorded in app_store_report_pruned_tokens, which the reporter reads
// first: it never looks at that token again. The price: a movement of such a
// token after the retention (a late refund or chargeback) is not reported,
// hence the floor above a yearly plan's renewal with its retries.

extension Setting {
    public static let webhookSenderRetentionAppStoreLines = Setting(
        "WEBHOOK_SENDER_RETENTION_APP_STORE_LINES", default: "540d",
        "how long a token's lines reported to Apple are kept after its last one was answered; then they are pruned and the token is not reported again (at least 400d, beyond a yearly renewal); 0 = forever"
    )
}

/// The rule that prunes the lines of tokens that have gone quiet.
public enum AppStoreReportRetention {
    public static let defaultPeriod = RetentionPeriod.keep(.seconds(540 * 86_400))
    /// Above a yearly plan's next renewal and its payment retries: a live
    /// subscription's token never goes quiet for this long.
    public static let minimum: Duration = .seconds(400 * 86_400)

    public static func fromEnvironment(_ reader: inout ConfigReader) -> RetentionPeriod {
        reader.retention(.webhookSenderRetentionAppStoreLines, default: .seconds(540 * 86_400), minimum: minimum)
    }

    /// One batch: at most `limit` tokens none of whose lines is pending and
    /// whose newest line was answered (else made) before the cutoff; their
    /// lines are deleted and the tokens recorded, in one statement. A line
    /// the reporter holds (sending, recording) is pending, so never taken.
    public static func rule(keep period: RetentionPeriod) -> RetentionRule {
        RetentionRule("app_store_report_lines", keep: period) { cutoff, limit in
            """
            WITH quiet AS (
                SELECT external_purchase_id FROM app_store_report_lines
                GROUP BY external_purchase_id
                HAVING bool_and(state <> 'pending') AND max(COALESCE(answered_at, created_at)) < \(cutoff)
                LIMIT \(limit)),
            marked AS (
                INSERT INTO app_store_report_pruned_tokens (external_purchase_id)
                SELECT external_purchase_id FROM quiet
                ON CONFLICT (external_purchase_id) DO NOTHING)
            DELETE FROM app_store_report_lines AS l USING quiet AS q
            WHERE l.external_purchase_id = q.external_purchase_id
            """
        }
    }
}
