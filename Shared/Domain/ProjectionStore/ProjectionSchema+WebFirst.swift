extension ProjectionSchema {
    /// Migration 15: web-first buyers (docs/web-first.md).
    ///
    /// - An anonymous checkout has no app user (`checkouts.app_user_id` NULL)
    ///   and may carry a campaign tag (`ref`).
    /// - A redeemed redemption token is ownership evidence of its own,
    ///   `redemption`, the strongest (rank 5): the buyer proved it holds the
    ///   link only the purchase's completion page or its email showed. The
    ///   first redemption of a purchase stands (the projector adds no second).
    /// - `user_aliases`: an anonymous user id merged into a signed-in user,
    ///   once (the primary key). `purchase_owner` reads evidence naming the
    ///   anonymous id as evidence naming the user it was merged into, so the
    ///   purchases move without rewriting the append-only evidence.
    static let webFirst = """
        ALTER TABLE checkouts ALTER COLUMN app_user_id DROP NOT NULL;
        ALTER TABLE checkouts ADD COLUMN ref text;
        -- The completion page finds a checkout by the provider's reference when the
        -- provider's return URL carries that instead of our checkout id.
        CREATE INDEX checkouts_provider_checkout ON checkouts (provider_checkout_id) WHERE provider_checkout_id IS NOT NULL;

        ALTER TABLE purchase_owners DROP CONSTRAINT purchase_owners_source_check;
        ALTER TABLE purchase_owners ADD CONSTRAINT purchase_owners_source_check
            CHECK (source IN ('redemption', 'custom_data', 'charge', 'checkout', 'email'));
        DROP INDEX purchase_owners_purchase;
        ALTER TABLE purchase_owners DROP COLUMN rank;
        ALTER TABLE purchase_owners ADD COLUMN rank smallint GENERATED ALWAYS AS (
            CASE source WHEN 'redemption' THEN 5 WHEN 'custom_data' THEN 4 WHEN 'charge' THEN 3 WHEN 'checkout' THEN 2 ELSE 1 END) STORED;
        CREATE INDEX purchase_owners_purchase ON purchase_owners (provider, purchase_type, purchase_id, rank);

        CREATE TABLE user_aliases (
            anonymous_id  text PRIMARY KEY,
            app_user_id   text NOT NULL CHECK (app_user_id <> anonymous_id),
            command_id    text NOT NULL,
            merged_at     timestamptz NOT NULL
        );
        CREATE INDEX user_aliases_app_user ON user_aliases (app_user_id);

        CREATE OR REPLACE FUNCTION purchase_owner(p_provider text, p_type text, p_id text) RETURNS text
        LANGUAGE plpgsql STABLE AS $owner$
        BEGIN
            RETURN (
                SELECT CASE WHEN count(DISTINCT COALESCE(a.app_user_id, po.app_user_id)) = 1
                            THEN min(COALESCE(a.app_user_id, po.app_user_id)) END
                FROM purchase_owners AS po
                LEFT JOIN user_aliases AS a ON a.anonymous_id = po.app_user_id
                WHERE po.provider = p_provider AND po.purchase_type = p_type AND po.purchase_id = p_id
                    AND po.rank = (SELECT max(q.rank) FROM purchase_owners AS q
                                   WHERE q.provider = p_provider AND q.purchase_type = p_type AND q.purchase_id = p_id));
        END
        $owner$;

        GRANT SELECT, INSERT ON user_aliases TO storefront_projector;
        -- The completion page and redeem find a checkout's purchase through the log's
        -- links, and only those columns: the payloads are not the checkout's to read.
        GRANT SELECT (provider, checkout_id, subscription_id, authorization_code, customer_id, ordering_ts, received_at)
            ON billing_events TO storefront_checkout;
        GRANT SELECT ON user_aliases TO storefront_readonly;
        """
}
