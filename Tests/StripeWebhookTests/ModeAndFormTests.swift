import Providers
import BillingModel
import Webhooks
import Testing

@Suite("Stripe test/live mode and form encoding")
struct ModeAndFormTests {
    @Test func theKeyPrefixNamesTheMode() {
        #expect(StripeMode(secretKey: "sk_test_51Abc") == .test)
        #expect(StripeMode(secretKey: "rk_test_51Abc") == .test)
        #expect(StripeMode(secretKey: "sk_live_51Abc") == .live)
        #expect(StripeMode(secretKey: "rk_live_51Abc") == .live)
        #expect(StripeMode(secretKey: "pk_test_51Abc") == nil)
        #expect(StripeMode(secretKey: "whsec_abc") == nil)
        #expect(StripeMode(secretKey: "sk_test") == nil)
        #expect(StripeMode(secretKey: "") == nil)
        #expect(StripeMode(livemode: false).isTest)
        #expect(!StripeMode(livemode: true).isTest)
    }

    @Test func nestedParametersUseBrackets() {
        let fields = [
            StripeField("mode", "subscription"),
            StripeField("line_items", .list([.map([StripeField("price", "price_123"), StripeField("quantity", 1)])])),
            StripeField("client_reference_id", "user-1"),
            StripeField("metadata", .map([StripeField("storefront_user_id", "user-1"), StripeField("note", "a b&c=d/é")])),
            StripeField("subscription_data", .map([StripeField("trial_period_days", 7), StripeField("metadata", .map([StripeField("k", "v")]))])),
            StripeField("success_url", "https://app.example/done?session_id={CHECKOUT_SESSION_ID}"),
            StripeField("cancel_at_period_end", true),
            StripeField("expand", .list(["subscription", "payment_intent"])),
        ]
        #expect(
            StripeFormEncoding.pairs(fields).map { "\($0.key)=\($0.value)" } == [
                "mode=subscription", "line_items[0][price]=price_123", "line_items[0][quantity]=1", "client_reference_id=user-1",
                "metadata[storefront_user_id]=user-1", "metadata[note]=a b&c=d/é", "subscription_data[trial_period_days]=7",
                "subscription_data[metadata][k]=v", "success_url=https://app.example/done?session_id={CHECKOUT_SESSION_ID}",
                "cancel_at_period_end=true", "expand[0]=subscription", "expand[1]=payment_intent",
            ])
        let body = StripeFormEncoding.body(Array(fields.prefix(4)))
        #expect(
            body == "mode=subscription&line_items%5B0%5D%5Bprice%5D=price_123&line_items%5B0%5D%5Bquantity%5D=1&client_reference_id=user-1"
                + "&metadata%5Bstorefront_user_id%5D=user-1&metadata%5Bnote%5D=a%20b%26c%3Dd%2F%C3%A9")
    }

    @Test func anEmptyValueIsKept() {
        #expect(StripeFormEncoding.body([StripeField("cancel_at", "")]) == "cancel_at=")
        #expect(StripeFormEncoding.body([]) == "")
    }
}
