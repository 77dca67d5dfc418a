extension ProjectionSchema {
    /// What the revenue figures read of the event log, as a view: the
    /// reconciler computes the revenue gauges from it with the same read as
    /// `storefront report` (``RevenueLog``), and its role may read the view,
    /// never `billing_events` itself.
    ///
    /// The view has the report's columns only (not `payload`, the
    /// provider's raw body, nor `app_user_id`), and its `event` drops what
    /// names or empowers the buyer: email, Paystack's `email_token` (it
    /// disables a subscription) and card authorization, the signed portal
    /// links, custom data, the user, checkout and customer ids. The revenue
    /// history reads none of them (``SubscriptionRevenueHistory``: status,
    /// variant, price and dates). A view runs with its owner's rights, so
    /// granting it grants nothing else of the table.
    static let revenueReads = """
        CREATE VIEW revenue_events AS
            SELECT provider, subscription_id, dedup_key, kind, ordering_ts,
                event - ARRAY['customerEmail', 'emailToken', 'authorizationCode', 'cardBrand', 'cardLastFour', 'customerPortalUrl',
                    'updatePaymentMethodUrl', 'customData', 'appUserId', 'checkoutId', 'customerId'] AS event,
                price_amount, price_currency, interval_unit, interval_count
            FROM billing_events;
        GRANT SELECT ON revenue_events TO storefront_reconciler, storefront_readonly;
        """
}
