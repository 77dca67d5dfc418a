import Foundation
import Postgres
import Retention
import ServiceSettings

// What the checkout prunes from the tables it owns (docs/retention.md). The
// idempotency keys are kept for their TTL (CHECKOUT_IDEMPOTENCY_TTL, read by
// CheckoutConfiguration): an expired key is never replayed, so it is deleted then.

extension Setting {
    public static let checkoutRetentionQuotaWindows = Setting(
        "CHECKOUT_RETENTION_QUOTA_WINDOWS", default: "1h", "how long a per-user quota window is kept after it ended (at least 1m); 0 = forever")
    public static let checkoutRetentionLedgerWindows = Setting(
        "CHECKOUT_RETENTION_LEDGER_WINDOWS", default: "1h",
        "how long a ten-second window of the shared provider ledger is kept (at least 1m; only the current one is read); 0 = forever")
    public static let checkoutRetentionExpiredRedemptions = Setting(
        "CHECKOUT_RETENTION_EXPIRED_REDEMPTIONS", default: "1d",
        "how long a redemption link nobody redeemed is kept after it expired (it answers 410 expired meanwhile, then 404); 0 = forever")
    public static let checkoutRetentionExternalPurchaseTokens = Setting(
        "CHECKOUT_RETENTION_EXTERNAL_PURCHASE_TOKENS", default: "30d",
        "how long an external purchase token's owner is kept past the token's end (a year after first use for tokens without one); 0 = forever")
}

extension SettingGroup {
    public static let checkoutRetention = SettingGroup(
        "Retention (checkout)",
        [
            .checkoutRetentionQuotaWindows, .checkoutRetentionLedgerWindows, .checkoutRetentionExpiredRedemptions,
            .checkoutRetentionExternalPurchaseTokens,
        ])
}

/// How long the checkout keeps each kind of row it prunes, and the schedule.
/// Redeemed links and merges of anonymous users are never pruned: a redeemed
/// link is the record of who proved what (one per redeemed purchase), and a
/// merge row is what makes a merge happen once (one per anonymous user).
public struct CheckoutRetention: Sendable {
    public var schedule = RetentionSchedule()
    public var quotaWindows = RetentionPeriod.keep(.seconds(3600))
    public var ledgerWindows = RetentionPeriod.keep(.seconds(3600))
    public var expiredRedemptions = RetentionPeriod.keep(.seconds(86_400))
    public var externalPurchaseTokens = RetentionPeriod.keep(.seconds(30 * 86_400))

    public init() {}

    /// Reads the settings above and `RETENTION_*`; problems go to `reader`.
    public static func fromEnvironment(_ reader: inout ConfigReader) -> CheckoutRetention {
        var retention = CheckoutRetention()
        retention.schedule = RetentionSchedule.fromEnvironment(&reader)
        retention.quotaWindows = reader.retention(.checkoutRetentionQuotaWindows, default: .seconds(3600), minimum: .seconds(60))
        retention.ledgerWindows = reader.retention(.checkoutRetentionLedgerWindows, default: .seconds(3600), minimum: .seconds(60))
        retention.expiredRedemptions = reader.retention(.checkoutRetentionExpiredRedemptions, default: .seconds(86_400))
        retention.externalPurchaseTokens = reader.retention(.checkoutRetentionExternalPurchaseTokens, default: .seconds(30 * 86_400))
        return retention
    }

    /// The rules, given how long idempotency keys live. Each batch finds its
    /// rows through an index on the time it compares (`created_at`,
    /// `window_start`, `expires_at`; the ledger, a few hundred rows an hour,
    /// through its primary key) and skips rows a request holds.
    public func rules(idempotencyTTL: Duration) -> [RetentionRule] {
        [
            RetentionRule("checkout_idempotency_keys", keep: .keep(idempotencyTTL)) { cutoff, limit in
                """
                DELETE FROM checkout_idempotency_keys WHERE ctid = ANY(ARRAY(
                    SELECT ctid FROM checkout_idempotency_keys WHERE created_at < \(cutoff) LIMIT \(limit) FOR UPDATE SKIP LOCKED))
                """
            },
            RetentionRule("checkout_user_quotas", keep: quotaWindows) { cutoff, limit in
                // Started before the cutoff (the index) and ended before it.
                """
                DELETE FROM checkout_user_quotas WHERE ctid = ANY(ARRAY(
                    SELECT ctid FROM checkout_user_quotas
                    WHERE window_start < \(cutoff) AND window_start + make_interval(secs => window_seconds) < \(cutoff)
                    LIMIT \(limit) FOR UPDATE SKIP LOCKED))
                """
            },
            RetentionRule("provider_request_ledger", keep: ledgerWindows) { cutoff, limit in
                """
                DELETE FROM provider_request_ledger WHERE ctid = ANY(ARRAY(
                    SELECT ctid FROM provider_request_ledger WHERE window_start < \(cutoff) LIMIT \(limit) FOR UPDATE SKIP LOCKED))
                """
            },
            RetentionRule("checkout_redemptions.expired", keep: expiredRedemptions) { cutoff, limit in
                """
                DELETE FROM checkout_redemptions WHERE ctid = ANY(ARRAY(
                    SELECT ctid FROM checkout_redemptions WHERE expires_at < \(cutoff) AND redeemed_by IS NULL
                    LIMIT \(limit) FOR UPDATE SKIP LOCKED))
                """
            },
            RetentionRule("checkout_external_purchase_tokens", keep: externalPurchaseTokens) { cutoff, limit in
                """
                DELETE FROM checkout_external_purchase_tokens WHERE ctid = ANY(ARRAY(
                    SELECT ctid FROM checkout_external_purchase_tokens WHERE keep_until < \(cutoff) LIMIT \(limit) FOR UPDATE SKIP LOCKED))
                """
            },
        ]
    }
}
