import Foundation

/// Answers shaped exactly as Storefront's services write them (see
/// README's API section and Shared/Domain/BillingModel): snake_case, explicit nulls,
/// ISO-8601 timestamps with milliseconds.
enum Fixtures {
    static let products = #"""
        {"success":true,"products":{"data":[
          {"type":"products","id":"ls_1","variantId":"ls_11","attributes":{"name":"Pro Monthly","description":"<p>All <b>pro</b> features</p>",
           "price_formatted":"$9.99","buy_now_url":"https://shop.example/buy/11","description_text":"All pro features","price":999,
           "currency":"USD","interval":"month","interval_count":1,"provider":"lemonsqueezy","test_mode":true,"extra_field":"ignored"}},
          {"type":"products","id":"ps_PLN_x","variantId":"ps_PLN_x","attributes":{"name":"Icons","description":"","price_formatted":"₦5,000.00",
           "buy_now_url":"","description_text":"","price":500000,"currency":"NGN","interval":null,"interval_count":null,
           "provider":"paystack","test_mode":false}}
        ]}}
        """#

    static func entitlement(
        _ identifier: String = "premium", active: Bool = true, latest: String = "2026-12-01T10:00:00.000Z",
        product: String = "ls_1", expires: String = "2027-01-01T10:00:00.000Z"
    ) -> String {
        #"""
        {"identifier":"\#(identifier)","is_active":\#(active),"expires_at":"\#(expires)","will_renew":true,
         "period_type":"normal","product_id":"\#(product)","provider":"lemonsqueezy","source":"subscription",
         "latest_purchase_at":"\#(latest)","original_purchase_at":"2026-11-01T10:00:00.123Z",
         "unsubscribe_detected_at":null,"billing_issue_detected_at":null,"sandbox":true}
        """#
    }

    static let lifetime = #"""
        {"identifier":"pro_icons","is_active":true,"expires_at":null,"will_renew":false,"period_type":"normal","product_id":"ps_PLN_x",
         "provider":"paystack","source":"purchase","latest_purchase_at":"2026-12-02T10:00:00.000Z","original_purchase_at":null,
         "unsubscribe_detected_at":null,"billing_issue_detected_at":null,"sandbox":false}
        """#

    static func entitlements(_ items: [String]) -> String {
        #"{"success":true,"entitlements":[\#(items.joined(separator: ","))]}"#
    }

    static let noStatus = #"""
        {"active":false,"plan_name":null,"next_billing_date":null,"subscription_code":null,"email_token":null,"status":null,
         "provider":null,"renews_at":null,"ends_at":null,"cancel_at_period_end":false,"customer_portal_url":null,
         "entitlements":[],"pending_checkout":null}
        """#

    static func status(active: Bool = true, entitlements: [String] = [entitlement()], pending: String? = nil) -> String {
        let pendingJSON =
            pending.map {
                #"{"checkout_id":"\#($0)","url":"https://sandbox.example/checkout/lemonsqueezy/abc","created_at":"2026-12-01T09:59:00.000Z","expires_at":null}"#
            } ?? "null"
        return #"""
            {"active":\#(active),"plan_name":"Pro Monthly","next_billing_date":"2027-01-01T10:00:00.000Z","subscription_code":"SUB_123",
             "email_token":"tok_9","status":"active","provider":"paystack","renews_at":"2027-01-01T10:00:00.000Z","ends_at":null,
             "cancel_at_period_end":false,"customer_portal_url":"https://portal.example/manage","entitlements":[\#(entitlements.joined(separator: ","))],
             "pending_checkout":\#(pendingJSON)}
            """#
    }

    static func pendingOnly(_ checkoutID: String, expiresAt: String = "null") -> String {
        #"""
        {"active":false,"plan_name":null,"next_billing_date":null,"subscription_code":null,"email_token":null,"status":null,
         "provider":null,"renews_at":null,"ends_at":null,"cancel_at_period_end":false,"customer_portal_url":null,"entitlements":[],
         "pending_checkout":{"checkout_id":"\#(checkoutID)","url":"https://sandbox.example/c","created_at":"2026-12-01T09:59:00.000Z","expires_at":\#(expiresAt)}}
        """#
    }

    static func checkout(id: String = "chk-1", expiresAt: String = "2030-01-01T00:00:00.000Z") -> String {
        #"{"success":true,"checkoutUrl":"https://sandbox.example/checkout/lemonsqueezy/abc?embed=0","checkoutId":"\#(id)","provider":"lemonsqueezy","expiresAt":"\#(expiresAt)"}"#
    }

    static let cancelled = #"""
        {"success":true,"message":"Subscription cancelled","provider":"paystack","subscription_code":"SUB_123","status":"non-renewing",
         "ends_at":"2027-01-01T10:00:00.000Z","renews_at":null,"cancel_at_period_end":true}
        """#

    static func failure(_ message: String) -> String { #"{"success":false,"error":"\#(message)"}"# }

    static func product(id: String = "ls_1") -> String {
        #"""
        {"success":true,"product":{"type":"products","id":"\#(id)","variantId":"ls_11","attributes":{"name":"Pro Monthly","description":"",
         "price_formatted":"$9.99","buy_now_url":"","description_text":"","price":999,"currency":"USD","interval":"month",
         "interval_count":1,"provider":"lemonsqueezy","test_mode":true}}}
        """#
    }

    static let portal =
        #"{"success":true,"url":"https://shop.lemonsqueezy.com/billing?expires=1&signature=abc","provider":"lemonsqueezy","subscription_code":"SUB_123"}"#
}
