/// Keys Storefront puts into checkout custom data (Lemon Squeezy
/// `checkout_data.custom`, echoed as `meta.custom_data`) and transaction
/// metadata (Paystack `metadata`), and reads back from webhooks.
///
/// Write them snake_case: the Lemon Squeezy JS SDK renames camelCase keys, so
/// snake_case is what every client ends up sending.
public enum CustomDataKeys {
    /// The app user id (JWT subject).
    public static let appUserID = "storefront_user_id"
    /// Storefront's checkout id (``CheckoutCreatedRecord/checkoutID``).
    public static let checkoutID = "storefront_checkout_id"
    /// Older or hand-made integrations (the seed tutorials' style); read as
    /// fall-backs for the app user id, in this order, never written.
    public static let appUserIDFallbacks = ["app_user_id", "user_id"]
}
