extension ProjectionSchema {
    /// Migration 16: what the projector's retention job (docs/retention.md)
    /// needs to prune the three projection tables that grow with traffic
    /// without being the business record: published outbox rows, checkouts
    /// never paid, and `refresh_requested` commands (an audit of reads).
    ///
    /// One partial index per kind of row, on the time it is pruned by, so a
    /// batch reads only rows it deletes; and DELETE for the projector on
    /// those tables (the code deletes only those rows: the log, owners,
    /// purchases and the other commands are never deleted). The DELETE on
    /// `commands` compares `kind` and `recorded_at`, so it needs SELECT on them.
    static let retention = """
        CREATE INDEX entitlement_outbox_published ON entitlement_outbox (published_at) WHERE published_at IS NOT NULL;
        CREATE INDEX checkouts_unpaid ON checkouts (created_at) WHERE completed_at IS NULL;
        CREATE INDEX commands_refresh_requested ON commands (recorded_at) WHERE kind = 'refresh_requested';
        GRANT DELETE ON entitlement_outbox, checkouts TO storefront_projector;
        GRANT SELECT (kind, recorded_at), DELETE ON commands TO storefront_projector;
        """
}
