import BillingModel
import JSONCodec
import Webhooks

/// Reads a Lemon Squeezy `subscriptions` resource.
enum LemonSqueezySubscriptionMapper {
    static func subscription(_ resource: JSONValue) -> ProviderSubscription? {
        guard resource["type"]?.string == "subscriptions", let id = resource["id"]?.string, let a = resource["attributes"], a.object != nil else {
            return nil
        }
        var s = ProviderSubscription(provider: .lemonsqueezy, id: id, status: a["status"]?.string ?? "unknown")
        s.customerID = a["customer_id"]?.string
        s.customerEmail = a["user_email"]?.string
        s.productID = a["product_id"]?.string
        s.variantID = a["variant_id"]?.string
        s.productName = a["product_name"]?.string
        s.variantName = a["variant_name"]?.string
        s.renewsAt = a["renews_at"]?.date
        s.nextPaymentDate = s.renewsAt
        s.endsAt = a["ends_at"]?.date
        s.trialEndsAt = a["trial_ends_at"]?.date
        s.cancelled = a["cancelled"]?.bool ?? false
        s.customerPortalURL = a["urls", "customer_portal"]?.string
        s.updatePaymentMethodURL = a["urls", "update_payment_method"]?.string
        s.cardBrand = a["card_brand"]?.string?.lowercased()
        s.cardLastFour = a["card_last_four"]?.string
        s.testMode = a["test_mode"]?.bool
        return s
    }
}
