import Postgres

extension WebhookSenderSchema {
    /// Migration 5: what the reporter sent to Apple (docs/app-store.md,
    /// "Reports to Apple"). One row per line item (or per token reported
    /// without one), written with its request identifier and body before the
    /// first send, so every resend (after a restart, a lost answer, a retry)
    /// is the same request, and a line is never planned twice: the primary
    /// key is the line's stable id.
    static let appStoreReportLines = """
        CREATE TABLE app_store_report_lines (
            external_purchase_id  text NOT NULL,
            -- Apple's lineItemId, or no-line-item:<token> (ReportPlan.noLineItemKey).
            line_key              text NOT NULL,
            request_identifier    uuid NOT NULL UNIQUE,
            -- The report's JSON exactly as sent, every time.
            body                  text NOT NULL,
            state                 text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'accepted', 'dead')),
            attempts              integer NOT NULL DEFAULT 0,
            -- A claimed line moves to the end of its lease: a reporter that died mid-send leaves it to another.
            next_attempt_at       timestamptz NOT NULL DEFAULT now(),
            last_error            text,
            created_at            timestamptz NOT NULL DEFAULT now(),
            answered_at           timestamptz,
            PRIMARY KEY (external_purchase_id, line_key)
        );
        CREATE INDEX app_store_report_lines_due ON app_store_report_lines (next_attempt_at) WHERE state = 'pending';
        GRANT SELECT, INSERT, UPDATE ON app_store_report_lines TO storefront_webhook_sender;
        GRANT SELECT ON app_store_report_lines TO storefront_admin;
        """
}
