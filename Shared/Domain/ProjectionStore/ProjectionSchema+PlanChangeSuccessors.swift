extension ProjectionSchema {
    /// Migration 21: a Paystack plan change at the period end
    /// (docs/plan-changes.md) ends the subscription and creates the new
    /// plan's subscription, to start then.
    ///
    /// - `subscriptions.starts_at`: when such a new subscription takes over;
    ///   it grants nothing before (unless the provider charged it already).
    /// - `plan_change` evidence in `purchase_owners`: the new subscription
    ///   belongs to the app user who asked for the change, as the owner of the
    ///   subscription it replaces (the change command is the evidence). It
    ///   carries no metadata of its own, and its first charge, a period
    ///   later, none either. Rank 4, as the purchase's own proven custom
    ///   data: Storefront made it, for that authenticated owner; only a
    ///   redemption (5) outranks it.
    static let planChangeSuccessors = """
        ALTER TABLE subscriptions ADD COLUMN starts_at timestamptz;

        ALTER TABLE purchase_owners DROP CONSTRAINT purchase_owners_source_check;
        ALTER TABLE purchase_owners ADD CONSTRAINT purchase_owners_source_check
            CHECK (source IN ('redemption', 'plan_change', 'custom_data', 'charge', 'checkout', 'email'));
        DROP INDEX purchase_owners_purchase;
        ALTER TABLE purchase_owners DROP COLUMN rank;
        ALTER TABLE purchase_owners ADD COLUMN rank smallint GENERATED ALWAYS AS (
            CASE source WHEN 'redemption' THEN 5 WHEN 'plan_change' THEN 4 WHEN 'custom_data' THEN 4 WHEN 'charge' THEN 3
                        WHEN 'checkout' THEN 2 ELSE 1 END) STORED;
        CREATE INDEX purchase_owners_purchase ON purchase_owners (provider, purchase_type, purchase_id, rank);
        """
}
