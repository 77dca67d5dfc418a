extension ProjectionSchema {
    /// Migration 20: where a checkout opened from an App Store app came from
    /// (`CheckoutCreatedRecord.appStore`): the storefront StoreKit reported and
    /// the external purchase token's id and type, for the reports to Apple and
    /// the commission per storefront (docs/app-store.md). NULL for checkouts
    /// that named no storefront (the web paywall, other platforms, older kits).
    static let appStoreCheckouts = """
        ALTER TABLE checkouts ADD COLUMN app_store_storefront text
            CHECK (app_store_storefront IS NULL OR app_store_storefront ~ '^[A-Z]{3}$');
        ALTER TABLE checkouts ADD COLUMN external_purchase_id text;
        ALTER TABLE checkouts ADD COLUMN external_purchase_token_type text;
        CREATE INDEX checkouts_external_purchase ON checkouts (external_purchase_id) WHERE external_purchase_id IS NOT NULL;
        """
}
