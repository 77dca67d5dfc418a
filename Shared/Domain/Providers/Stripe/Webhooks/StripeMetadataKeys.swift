import BillingModel

/// Metadata keys Storefront's checkout writes on a Checkout Session besides
/// the owner claim (``StripeOwnerClaim``, the keys of `CustomDataKeys`).
///
/// A session's webhook does not carry its line items (they come only when
/// expanded on a fetch), so the checkout names what was bought in the
/// session's own metadata, which only a secret key can set.
public enum StripeMetadataKeys {
    /// The Price bought (`price_…`, the catalog's variant id).
    public static let priceID = "storefront_price_id"
    /// The Product of that price (`prod_…`, the catalog's product id).
    public static let productID = "storefront_product_id"
    /// The Product's name when the checkout was made, on the session and the
    /// subscription: Stripe's subscription events name the Price, not what it is called.
    public static let planName = "storefront_plan_name"
}
