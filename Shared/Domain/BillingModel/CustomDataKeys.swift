/// Keys Storefront puts into checkout custom data (Lemon Squeezy
/// `checkout_data.custom`, echoed as `meta.custom_data`) and transaction
/// metadata (Paystack `metadata`), and reads back from webhooks.
///
/// Write them snake_case: the Lemon Squeezy JS SDK renames camelCase keys, so
/// snake_case is what every client ends up sending.
///
/// Custom data is a claim, not evidence: anyone can put these keys on a
/// Lemon Squeezy buy link (`checkout[custom][…]`). The user and checkout ids
/// count only with a valid ``proof`` for them (the `Webhooks` module's
/// `OwnershipProof`); no other key (an `app_user_id` or `user_id` of some
/// other integration) is ever read as the user.
public enum CustomDataKeys {
    /// The app user id (JWT subject).
    public static let appUserID = "storefront_user_id"
    /// Storefront's checkout id (``CheckoutCreatedRecord/checkoutID``).
    public static let checkoutID = "storefront_checkout_id"
    /// The server-keyed proof that Storefront made that checkout for that
    /// user: hex HMAC-SHA256 over the two ids (`OwnershipProof`).
    public static let proof = "storefront_proof"
}
