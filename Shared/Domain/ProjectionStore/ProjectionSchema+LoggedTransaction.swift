extension ProjectionSchema {
    /// Migration 22: the transaction that logged each event, so the revenue
    /// gauges read only what was logged since their last computation
    /// (``RevenueLogFollower``: from the previous snapshot's `xmin`, since
    /// transactions commit out of id order).
    ///
    /// The default is set after the column is added, so existing rows stay
    /// NULL (no rewrite of the log); they are read by the first, full read
    /// only. The index is partial for the same reason. The view gains the
    /// column at its end (CREATE OR REPLACE keeps its grants); its other
    /// columns are migration 10's, unchanged.
    static let loggedTransaction = """
        ALTER TABLE billing_events ADD COLUMN logged_xid xid8;
        ALTER TABLE billing_events ALTER COLUMN logged_xid SET DEFAULT pg_current_xact_id();
        CREATE INDEX billing_events_logged_xid ON billing_events (logged_xid) WHERE logged_xid IS NOT NULL;
        CREATE OR REPLACE VIEW revenue_events AS
            SELECT provider, subscription_id, dedup_key, kind, ordering_ts,
                event - ARRAY['customerEmail', 'emailToken', 'authorizationCode', 'cardBrand', 'cardLastFour', 'customerPortalUrl',
                    'updatePaymentMethodUrl', 'customData', 'appUserId', 'checkoutId', 'customerId'] AS event,
                price_amount, price_currency, interval_unit, interval_count, logged_xid
            FROM billing_events;
        """
}
