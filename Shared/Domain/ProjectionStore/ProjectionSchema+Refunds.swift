extension ProjectionSchema {
    /// Migration 18 (refunds from support, `POST /api/users/{id}/refunds`):
    /// the checkout reads a subscription's payments to find the one a refund
    /// gives money back for (the latest paid one) and how much it was, before
    /// the provider is called, and of the log the columns that link a charge
    /// naming no subscription to one (Paystack: customer, plan, card; the
    /// others it reads since migration 15); and the audit of a refund request keeps who
    /// asked (the API key's id, never the key), the payment, the amount and
    /// how the provider took it. The columns are NULL for every other command.
    static let refunds = """
        ALTER TABLE commands
            ADD COLUMN requested_by text,
            ADD COLUMN payment_id text,
            ADD COLUMN amount bigint,
            ADD COLUMN outcome text;
        CREATE INDEX payments_subscription ON payments (provider, subscription_id, occurred_at DESC)
            WHERE subscription_id IS NOT NULL;
        GRANT SELECT ON payments TO storefront_checkout;
        GRANT SELECT (kind, order_id, plan_code) ON billing_events TO storefront_checkout;
        """
}
