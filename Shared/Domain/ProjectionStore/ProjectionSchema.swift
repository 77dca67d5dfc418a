/// The subscription projection's PostgreSQL schema (written by the projector, read by checkout and the CLI), as ordered migrations. Kept in code
/// rather than loose `.sql` files so every binary (and the container image)
/// carries exactly the schema it was built with.
public enum ProjectionSchema {
    /// (version, name, SQL), applied in order by the Postgres migrator.
    public static let migrations: [(version: Int, name: String, sql: String)] = [
        (1, "initial projection schema", initial),
        (2, "projector write-path columns", writePath),
        (3, "purchase owners and entitlement columns", ownership),
        (4, "when the signed portal links were issued", portalLinks),
        (5, "the fold position of each subscription", foldPosition),
        (6, "a database role per service", serviceRoles),
        (7, "ranked ownership evidence, refunds and disputes", moneyBack),
        (8, "the recurring price each event states", recurringPrice),
        (9, "the entitlement change outbox", entitlementOutbox),
        (10, "what the revenue figures read of the event log", revenueReads),
        (11, "only writes of entitlement facts touch their owner", entitlementTouchFilter),
        (12, "whether a checkout sold a subscription", checkoutKind),
        (13, "the touch triggers pair old and new rows by key", entitlementTouchByKey),
        (14, "the event log compresses with lz4", eventCompression),
        (15, "web-first buyers: anonymous checkouts, redemption evidence, user aliases", webFirst),
        (16, "retention: indexes on the times rows are pruned by, and the projector's DELETE on them", retention),
        (17, "promotional grants of entitlements, with who gave and who revoked them", grants),
        (18, "refunds from support: the checkout reads payments; refund requests audited with who asked", refunds),
        (19, "a plan change scheduled for the end of a subscription's period", pendingPlanChanges),
        (20, "the App Store storefront and external purchase token a checkout came with", appStoreCheckouts),
        (21, "a plan change's new subscription: when it starts, and its owner", planChangeSuccessors),
        (22, "the transaction that logged each event, for the revenue gauges' incremental reads", loggedTransaction),
        (23, "what the reports to Apple read: each external purchase token and the money it led to", appStoreReports),
    ]

    /// The NOLOGIN group roles of the services, created by migration 6 and
    /// granted by it (and by every later migration that adds a table)
    /// exactly what each service does with each table.
    public enum ServiceRoles {
        /// The subscription-projector: the only writer of the projection.
        public static let projector = "storefront_projector"
        /// checkout: reads the projection; owns its idempotency keys (``CheckoutSchema``).
        public static let checkout = "storefront_checkout"
        /// reconciler (and `storefront reconcile`): reads subscription statuses, for drift,
        /// and (migration 10) the view `revenue_events`, for the revenue gauges.
        public static let reconciler = "storefront_reconciler"
        /// Operators (`storefront status`, ad-hoc queries): reads every projection table.
        public static let readOnly = "storefront_readonly"
        /// All of them, in the order migrations create them.
        public static let all = [checkout, projector, readOnly, reconciler]
    }

    static let initial = """
        -- App users as the apps' identity provider names them (token subject).
        CREATE TABLE app_users (
            app_user_id  text PRIMARY KEY,
            email        text,
            created_at   timestamptz NOT NULL DEFAULT now(),
            updated_at   timestamptz NOT NULL DEFAULT now()
        );

        -- A provider's customer, linked to an app user once an event carries both.
        CREATE TABLE provider_customers (
            provider     text NOT NULL,
            customer_id  text NOT NULL,
            app_user_id  text,
            email        text,
            updated_at   timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (provider, customer_id)
        );
        CREATE INDEX provider_customers_app_user ON provider_customers (app_user_id);

        -- Append-only audit trail and idempotency guard: one row per delivery.
        CREATE TABLE billing_events (
            dedup_key        text PRIMARY KEY,
            provider         text NOT NULL,
            event_name       text NOT NULL,
            kind             text NOT NULL,
            entity_key       text NOT NULL,
            subscription_id  text,
            order_id         text,
            customer_id      text,
            app_user_id      text,
            ordering_ts      timestamptz,
            received_at      timestamptz NOT NULL,
            applied_at       timestamptz NOT NULL DEFAULT now(),
            source_partition integer NOT NULL,
            source_offset    bigint NOT NULL,
            event            jsonb NOT NULL,
            payload          bytea NOT NULL
        );
        CREATE INDEX billing_events_subscription ON billing_events (provider, subscription_id)
            WHERE subscription_id IS NOT NULL;

        -- Projected from billing_events by the subscription fold; never written elsewhere.
        CREATE TABLE subscriptions (
            provider                   text NOT NULL,
            subscription_id            text NOT NULL,
            app_user_id                text,
            customer_id                text,
            customer_email             text,
            product_id                 text,
            variant_id                 text,
            plan_name                  text,
            status                     text NOT NULL,
            renews_at                  timestamptz,
            ends_at                    timestamptz,
            trial_ends_at              timestamptz,
            cancel_at_period_end       boolean NOT NULL DEFAULT false,
            email_token                text,
            card_brand                 text,
            card_last_four             text,
            customer_portal_url        text,
            update_payment_method_url  text,
            source_updated_at          timestamptz,
            last_event_key             text NOT NULL,
            projected_at               timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (provider, subscription_id)
        );
        CREATE INDEX subscriptions_app_user ON subscriptions (app_user_id);
        CREATE INDEX subscriptions_email ON subscriptions (lower(customer_email));

        -- One-time purchases. status: paid, then refunded (terminal).
        CREATE TABLE orders (
            provider           text NOT NULL,
            order_id           text NOT NULL,
            app_user_id        text,
            customer_id        text,
            customer_email     text,
            product_id         text,
            variant_id         text,
            product_name       text,
            status             text NOT NULL,
            amount             bigint,
            currency           text,
            paid_at            timestamptz,
            refunded_at        timestamptz,
            PRIMARY KEY (provider, order_id)
        );
        CREATE INDEX orders_app_user ON orders (app_user_id);

        -- Payments and invoices of subscriptions, one row per provider payment.
        CREATE TABLE payments (
            provider         text NOT NULL,
            payment_id       text NOT NULL,
            subscription_id  text,
            kind             text NOT NULL,
            status           text,
            amount           bigint,
            currency         text,
            occurred_at      timestamptz,
            PRIMARY KEY (provider, payment_id)
        );

        -- Checkouts opened by the checkout service (storefront.checkouts.v1).
        CREATE TABLE checkouts (
            checkout_id           text PRIMARY KEY,
            provider              text NOT NULL,
            app_user_id           text NOT NULL,
            email                 text NOT NULL,
            product_id            text,
            variant_id            text NOT NULL,
            provider_checkout_id  text,
            url                   text NOT NULL,
            created_at            timestamptz NOT NULL,
            expires_at            timestamptz,
            completed_at          timestamptz
        );
        CREATE INDEX checkouts_app_user ON checkouts (app_user_id, created_at DESC);

        -- Commands the checkout service issued (storefront.commands.v1), for audit.
        CREATE TABLE commands (
            command_id       text PRIMARY KEY,
            kind             text NOT NULL,
            provider         text NOT NULL,
            subscription_id  text NOT NULL,
            app_user_id      text,
            requested_at     timestamptz NOT NULL,
            recorded_at      timestamptz NOT NULL DEFAULT now()
        );
        """

    /// Additive only (readers written against migration 1 keep working):
    /// columns the projector needs to link events order-independently, and
    /// per-field provider timestamps so side tables converge to the same row
    /// whatever order the events arrive in (newest provider timestamp wins,
    /// ties broken by value).
    static let writePath = """
        -- Links that must be found from either side, whichever event arrives first.
        ALTER TABLE billing_events ADD COLUMN plan_code text;
        ALTER TABLE billing_events ADD COLUMN checkout_id text;
        ALTER TABLE billing_events ADD COLUMN transaction_reference text;
        -- Paystack renewals (charge.success with a plan, no subscription code) by customer + plan.
        CREATE INDEX billing_events_unlinked ON billing_events (provider, customer_id, plan_code)
            WHERE subscription_id IS NULL;
        CREATE INDEX billing_events_checkout ON billing_events (checkout_id) WHERE checkout_id IS NOT NULL;
        CREATE INDEX billing_events_app_user ON billing_events (provider, app_user_id) WHERE app_user_id IS NOT NULL;
        CREATE INDEX billing_events_reference ON billing_events (provider, transaction_reference)
            WHERE transaction_reference IS NOT NULL;

        ALTER TABLE app_users ADD COLUMN email_at timestamptz;
        ALTER TABLE provider_customers ADD COLUMN app_user_at timestamptz;
        ALTER TABLE provider_customers ADD COLUMN email_at timestamptz;

        ALTER TABLE orders ADD COLUMN transaction_reference text;
        ALTER TABLE orders ADD COLUMN refunded_amount bigint;
        CREATE INDEX orders_reference ON orders (provider, transaction_reference) WHERE transaction_reference IS NOT NULL;
        """

    /// Ownership (first owner wins until migration 7 ranks the evidence), and what the access rules read.
    /// Existing rows keep the owner the old rule had given them.
    static let ownership = """
        -- Who owns each purchase, for good: the first owner recorded wins and no
        -- later event, customer record or email changes it. Also the audit trail
        -- of how each owner was found.
        CREATE TABLE purchase_owners (
            provider       text NOT NULL,
            purchase_type  text NOT NULL CHECK (purchase_type IN ('subscription', 'order')),
            purchase_id    text NOT NULL,
            app_user_id    text NOT NULL,
            -- checkout: the purchase's own custom data / metadata named the user;
            -- email: claimed through the user's verified email (no owner before).
            source         text NOT NULL CHECK (source IN ('checkout', 'email')),
            -- The dedup key of the event, or the id of the claim command.
            evidence       text NOT NULL,
            owned_at       timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (provider, purchase_type, purchase_id)
        );
        CREATE INDEX purchase_owners_app_user ON purchase_owners (app_user_id);
        INSERT INTO purchase_owners (provider, purchase_type, purchase_id, app_user_id, source, evidence)
            SELECT provider, 'subscription', subscription_id, app_user_id, 'checkout', 'migration 3'
            FROM subscriptions WHERE app_user_id IS NOT NULL;
        INSERT INTO purchase_owners (provider, purchase_type, purchase_id, app_user_id, source, evidence)
            SELECT provider, 'order', order_id, app_user_id, 'checkout', 'migration 3'
            FROM orders WHERE app_user_id IS NOT NULL;

        -- Paystack: a subscription and the charge that created it share an authorization.
        ALTER TABLE billing_events ADD COLUMN authorization_code text;
        CREATE INDEX billing_events_authorization ON billing_events (provider, authorization_code)
            WHERE authorization_code IS NOT NULL;
        CREATE INDEX billing_events_order ON billing_events (provider, order_id) WHERE order_id IS NOT NULL;

        ALTER TABLE subscriptions
            ADD COLUMN pause_mode text,
            ADD COLUMN pause_resumes_at timestamptz,
            ADD COLUMN test_mode boolean,
            ADD COLUMN order_id text,
            ADD COLUMN authorization_code text,
            ADD COLUMN original_purchase_at timestamptz,
            ADD COLUMN latest_purchase_at timestamptz,
            ADD COLUMN unsubscribe_detected_at timestamptz,
            ADD COLUMN billing_issue_detected_at timestamptz,
            ADD COLUMN refunded_at timestamptz,
            ADD COLUMN first_seen_at timestamptz NOT NULL DEFAULT now();

        -- An order that is a subscription's first payment is part of it.
        ALTER TABLE orders
            ADD COLUMN subscription_id text,
            ADD COLUMN test_mode boolean,
            ADD COLUMN first_seen_at timestamptz NOT NULL DEFAULT now();
        UPDATE orders AS o SET subscription_id = e.subscription_id FROM billing_events AS e
            WHERE e.provider = o.provider AND e.order_id = o.order_id AND e.subscription_id IS NOT NULL;
        """

    /// Lemon Squeezy's portal links expire 24 hours after the object carrying
    /// them was fetched; the status answer needs their age.
    static let portalLinks = """
        ALTER TABLE subscriptions ADD COLUMN portal_urls_seen_at timestamptz;
        """

    /// Where each subscription's fold stands (the last event applied: time,
    /// precedence, key), so an event arriving in order is applied to the row
    /// without re-reading the log. NULL (rows from before): the next event
    /// re-folds from the log.
    static let foldPosition = """
        ALTER TABLE subscriptions ADD COLUMN last_event_at timestamptz, ADD COLUMN last_event_rank integer;
        """

    /// One NOLOGIN group role per service with only what it does; the
    /// deployment grants each to its service's login user (README, "Database
    /// roles"). Roles belong to the whole cluster, so migrations of several
    /// databases at once may race to create one: a role created meanwhile is
    /// taken as it is (same names, same order everywhere, so no two
    /// migrations wait on each other). The migrating user needs CREATEROLE
    /// (or the roles must exist). PostgreSQL 15 and later grant nobody
    /// CREATE on schema public, so none of these roles can add tables.
    static let serviceRoles = """
        DO $roles$
        DECLARE
            role_name text;
        BEGIN
            FOREACH role_name IN ARRAY ARRAY['storefront_checkout', 'storefront_projector', 'storefront_readonly', 'storefront_reconciler'] LOOP
                IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = role_name) THEN
                    BEGIN
                        EXECUTE format('CREATE ROLE %I NOLOGIN', role_name);
                    EXCEPTION WHEN duplicate_object OR unique_violation THEN
                        NULL; -- created meanwhile by the migration of another database
                    END;
                END IF;
            END LOOP;
        END
        $roles$;

        -- The projector writes the projection: upserts, never DELETE or TRUNCATE.
        -- billing_events, purchase_owners and commands are append-only.
        GRANT SELECT, INSERT, UPDATE ON app_users, provider_customers, subscriptions, orders, payments, checkouts
            TO storefront_projector;
        GRANT SELECT, INSERT ON billing_events, purchase_owners TO storefront_projector;
        -- commands is an audit log it never reads: INSERT, and SELECT on the one
        -- column its ON CONFLICT (command_id) needs.
        GRANT INSERT, SELECT (command_id) ON commands TO storefront_projector;
        -- Read at start-up to see that the schema is current (PROJECTOR_MIGRATE).
        GRANT SELECT ON schema_migrations TO storefront_projector;

        -- checkout answers status and entitlements from these three; it writes
        -- only its own tables (CheckoutSchema) and publishes everything else.
        GRANT SELECT ON subscriptions, orders, checkouts TO storefront_checkout;

        -- The reconciler compares each listed subscription's status (drift).
        GRANT SELECT (provider, subscription_id, status) ON subscriptions TO storefront_reconciler;

        -- Operators: storefront status, ad-hoc reads.
        GRANT SELECT ON app_users, provider_customers, billing_events, subscriptions, orders, payments, checkouts,
            commands, purchase_owners, schema_migrations TO storefront_readonly;
        """

    /// Ownership becomes ranked evidence instead of first-writer-wins, and
    /// the projection learns partial refunds and disputes.
    ///
    /// `purchase_owners` stays append-only, but holds every piece of evidence
    /// (one row per purchase, user and kind of evidence). The owner is
    /// `purchase_owner(...)`: the one app user named by the strongest kind of
    /// evidence, or nobody when that kind names more than one (a heuristic
    /// never picks between users). Ranks: `custom_data` (the purchase's own
    /// custom data or metadata, carrying Storefront's proof) 4 > `charge` (a
    /// Paystack subscription linked to the proven charge that created it) 3 >
    /// `checkout` (a purchase matched to an open checkout with the same
    /// variant and verified email) 2 > `email` (a claim through a verified
    /// email) 1. Before this migration `checkout` meant custom data, except
    /// for evidence `checkout:<id>` (a checkout match) and Paystack
    /// subscriptions (linked through their charge).
    static let moneyBack = """
        ALTER TABLE purchase_owners DROP CONSTRAINT purchase_owners_pkey;
        ALTER TABLE purchase_owners DROP CONSTRAINT purchase_owners_source_check;
        UPDATE purchase_owners SET source = 'charge'
            WHERE source = 'checkout' AND provider = 'paystack' AND purchase_type = 'subscription';
        UPDATE purchase_owners SET source = 'custom_data' WHERE source = 'checkout' AND evidence NOT LIKE 'checkout:%';
        ALTER TABLE purchase_owners ADD CONSTRAINT purchase_owners_source_check
            CHECK (source IN ('custom_data', 'charge', 'checkout', 'email'));
        ALTER TABLE purchase_owners ADD COLUMN rank smallint GENERATED ALWAYS AS (
            CASE source WHEN 'custom_data' THEN 4 WHEN 'charge' THEN 3 WHEN 'checkout' THEN 2 ELSE 1 END) STORED;
        ALTER TABLE purchase_owners ADD PRIMARY KEY (provider, purchase_type, purchase_id, app_user_id, source);
        CREATE INDEX purchase_owners_purchase ON purchase_owners (provider, purchase_type, purchase_id, rank);

        -- PL/pgSQL, not SQL: its query plan is prepared once per session,
        -- where a non-inlinable SQL function is planned again on every call
        -- (once per upserted row).
        CREATE FUNCTION purchase_owner(p_provider text, p_type text, p_id text) RETURNS text
        LANGUAGE plpgsql STABLE AS $owner$
        BEGIN
            RETURN (
                SELECT CASE WHEN count(DISTINCT po.app_user_id) = 1 THEN min(po.app_user_id) END
                FROM purchase_owners AS po
                WHERE po.provider = p_provider AND po.purchase_type = p_type AND po.purchase_id = p_id
                    AND po.rank = (SELECT max(q.rank) FROM purchase_owners AS q
                                   WHERE q.provider = p_provider AND q.purchase_type = p_type AND q.purchase_id = p_id));
        END
        $owner$;

        -- Facts the access rules weigh (README, "Access"): a partial refund of
        -- the current period, and a dispute (chargeback) still open.
        ALTER TABLE subscriptions
            ADD COLUMN partially_refunded_at timestamptz,
            ADD COLUMN dispute_opened_at timestamptz;
        ALTER TABLE orders
            ADD COLUMN partially_refunded_at timestamptz,
            ADD COLUMN dispute_opened_at timestamptz,
            ADD COLUMN dispute_resolved_at timestamptz;

        -- Only a checkout opened with the user's verified email may be matched
        -- to a purchase by email; a typed address is a pre-fill.
        ALTER TABLE checkouts ADD COLUMN email_verified boolean NOT NULL DEFAULT false;
        """

    /// What monthly recurring revenue needs and the log kept only inside
    /// `event`: the plan's price per period, as the payload states it
    /// (``BillingEvent/recurringPrice``; Paystack's `plan` object), filled by
    /// the projector. Rows logged before stay NULL (and so do Lemon Squeezy's,
    /// whose payloads never state it): `storefront report` takes those from
    /// the catalog when given one, else counts them as "unknown interval"
    /// rather than guessing (docs/revenue.md). The tables' grants cover new columns.
    static let recurringPrice = """
        ALTER TABLE billing_events
            ADD COLUMN price_amount bigint,
            ADD COLUMN price_currency text,
            ADD COLUMN interval_unit text CHECK (interval_unit IN ('hour', 'day', 'week', 'month', 'year')),
            ADD COLUMN interval_count integer CHECK (interval_count >= 1);
        """

    /// A plan change the provider will make at the end of the period (docs/plan-changes.md).
    static let pendingPlanChanges = """
        ALTER TABLE subscriptions
            ADD COLUMN pending_variant_id text,
            ADD COLUMN pending_change_at timestamptz;
        """

}
