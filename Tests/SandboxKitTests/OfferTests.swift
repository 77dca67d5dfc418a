import Testing
@testable import SandboxKit

/// Offers at checkout: Lemon Squeezy discount codes and variant trials,
/// Stripe promotion codes, trials, tax and locale: what each provider
/// documents, as the sandbox answers it and as its webhooks carry it.
@Suite struct OfferTests {
    /// A Lemon Squeezy checkout for `variant` with `checkout_data.discount_code`.
    func lsCheckout(_ h: Harness, variant: Int, code: String) async -> SandboxResponse {
        await h.ls(
            "POST", "/checkouts",
            body: [
                "data": [
                    "type": "checkouts",
                    "attributes": ["checkout_data": ["email": "buyer@example.com", "discount_code": .string(code), "custom": ["user_id": "42"]]],
                    "relationships": [
                        "store": ["data": ["type": "stores", "id": "1"]], "variant": ["data": ["type": "variants", "id": .string(String(variant))]],
                    ],
                ]
            ])
    }

    @Test func aLemonSqueezyDiscountCodeLowersTheFirstPaymentInTheWebhooks() async throws {
        let h = Harness()
        let created = await lsCheckout(h, variant: 2, code: "spring20") // matched whatever the case
        #expect(created.status == 201)
        #expect(created.json?["data"]?["attributes"]?["checkout_data"]?["discount_code"]?.stringValue == "SPRING20")
        let id = try #require(created.json?["data"]?["id"]?.stringValue)
        let paid = await h.control("POST", "/checkouts/lemonsqueezy/\(id)/pay")
        #expect(paid.status == 200)
        let sent = await h.delivered(after: 0)
        let order = try #require(sent.first { $0.lsEvent == "order_created" }?.json["data"]?["attributes"])
        #expect(order["subtotal"]?.intValue == 499 && order["discount_total"]?.intValue == 99 && order["total"]?.intValue == 400)
        #expect(order["discount_total_formatted"]?.stringValue == "$0.99")
        let invoice = try #require(sent.first { $0.lsEvent == "subscription_payment_success" }?.json["data"]?["attributes"])
        #expect(invoice["total"]?.intValue == 400 && invoice["discount_total"]?.intValue == 99)

        // A fixed amount off a one-time product.
        let fixed = try #require(await lsCheckout(h, variant: 6, code: "FIVEOFF").json?["data"]?["id"]?.stringValue)
        let mark = await h.mark()
        _ = await h.control("POST", "/checkouts/lemonsqueezy/\(fixed)/pay")
        let oneTime = try #require(await h.delivered(after: mark).first?.json["data"]?["attributes"])
        #expect(oneTime["total"]?.intValue == 999 && oneTime["discount_total"]?.intValue == 500)
    }

    @Test func refusedLemonSqueezyCodesPointAtTheDiscountCode() async throws {
        let h = Harness()
        for (variant, code, detail) in [
            (2, "NOSUCHCODE", "The discount code is invalid."), (2, "DRAFT15", "The discount code is invalid."),
            (2, "EXPIRED10", "The discount code has expired."), (2, "ICONS50", "The discount code does not apply to this product."),
        ] {
            let refused = await lsCheckout(h, variant: variant, code: code)
            #expect(refused.status == 422, "\(code)")
            let error = try #require(refused.json?["errors"]?.arrayValue?.first)
            #expect(error["detail"]?.stringValue == detail)
            #expect(error["source"]?["pointer"]?.stringValue == "/data/attributes/checkout_data/discount_code")
        }
        #expect(await lsCheckout(h, variant: 1, code: "ICONS50").status == 201, "the icons code applies to the icons")
    }

    @Test func aLemonSqueezyVariantWithAFreeTrialShowsItAndStartsOnTrial() async throws {
        let h = Harness()
        let variant = try #require(await h.ls("GET", "/variants/3").json?["data"]?["attributes"])
        #expect(variant["has_free_trial"]?.boolValue == true)
        #expect(variant["trial_interval"]?.stringValue == "day" && variant["trial_interval_count"]?.intValue == 14)
        #expect(await h.ls("GET", "/variants/2").json?["data"]?["attributes"]?["has_free_trial"]?.boolValue == false)

        let id = try #require(await h.lsCheckout(variant: 3))
        _ = await h.control("POST", "/checkouts/lemonsqueezy/\(id)/pay")
        let sent = await h.delivered(after: 0)
        let subscription = try #require(sent.first { $0.lsEvent == "subscription_created" }?.json["data"]?["attributes"])
        #expect(subscription["status"]?.stringValue == "on_trial" && subscription["trial_ends_at"] != .null)
        #expect(sent.first { $0.lsEvent == "order_created" }?.json["data"]?["attributes"]?["total"]?.intValue == 0)
    }

    @Test func stripePromotionCodesAreListedByCodeAndActivity() async throws {
        let h = Harness()
        let found = await h.stripe("GET", "/promotion_codes?code=spring20&active=true")
        #expect(found.status == 200)
        let codes = try #require(found.json?["data"]?.arrayValue)
        #expect(codes.count == 1 && codes[0]["id"]?.stringValue == "promo_SbxSpring20" && codes[0]["coupon"]?["percent_off"]?.intValue == 20)
        #expect(await h.stripe("GET", "/promotion_codes?code=EXPIRED10&active=true").json?["data"]?.arrayValue?.isEmpty == true)
        #expect(await h.stripe("GET", "/promotion_codes?code=EXPIRED10").json?["data"]?[0]?["active"]?.boolValue == false)
    }

    @Test func aStripePromotionCodeLowersTheSessionAndThePayment() async throws {
        let h = Harness()
        let session = try #require(
            await h.stripeSession(
                price: "price_SbxProIcons", mode: "payment",
                extra: [("discounts[0][promotion_code]", "promo_SbxIcons50"), ("automatic_tax[enabled]", "true"), ("locale", "de")]))
        let stored = try #require(await h.stripe("GET", "/checkout/sessions/\(session)").json)
        #expect(stored["amount_subtotal"]?.intValue == 999 && stored["amount_total"]?.intValue == 500)
        #expect(stored["total_details"]?["amount_discount"]?.intValue == 499)
        #expect(stored["automatic_tax"]?["enabled"]?.boolValue == true && stored["locale"]?.stringValue == "de")
        let paid = await h.control("POST", "/checkouts/stripe/\(session)/pay")
        let intent = try #require(paid.json?["payment_intent_id"]?.stringValue ?? stored["payment_intent"]?.stringValue)
        #expect(await h.stripe("GET", "/payment_intents/\(intent)").json?["amount"]?.intValue == 500)
    }

    @Test func aStripePromotionCodeLowersASubscriptionsFirstInvoiceOnly() async throws {
        let h = Harness()
        let session = try #require(await h.stripeSession(extra: [("discounts[0][promotion_code]", "promo_SbxSpring20")]))
        let paid = await h.control("POST", "/checkouts/stripe/\(session)/pay")
        let id = try #require(paid.json?["subscription_id"]?.stringValue)
        let first = try #require(await h.delivered(after: 0).first { $0.json["type"]?.stringValue == "invoice.paid" })
        #expect(first.json["data"]?["object"]?["amount_paid"]?.intValue == 400, "$4.99 less 20 %, whole cents down")
        h.clock.advance(days: 31)
        let mark = await h.mark()
        _ = await h.control("POST", "/stripe/subscriptions/\(id)/renew")
        let renewal = try #require(await h.delivered(after: mark).first { $0.json["type"]?.stringValue == "invoice.paid" })
        #expect(renewal.json["data"]?["object"]?["amount_paid"]?.intValue == 499, "a once coupon")
    }

    @Test func refusedStripeDiscountsNameTheParameter() async throws {
        let h = Harness()
        for (price, promo) in [("price_SbxPremiumMonthly", "promo_SbxIcons50"), ("price_SbxPremiumMonthly", "promo_SbxExpired10")] {
            let r = await h.stripe(
                "POST", "/checkout/sessions",
                form: [
                    ("mode", "subscription"), ("line_items[0][price]", price), ("success_url", "https://app.example/done"),
                    ("discounts[0][promotion_code]", promo),
                ])
            #expect(r.status == 400, "\(promo)")
            #expect(r.json?["error"]?["param"]?.stringValue == "discounts[0][promotion_code]")
        }
        let both = await h.stripe(
            "POST", "/checkout/sessions",
            form: [
                ("mode", "subscription"), ("line_items[0][price]", "price_SbxPremiumMonthly"), ("success_url", "https://app.example/done"),
                ("discounts[0][promotion_code]", "promo_SbxSpring20"), ("allow_promotion_codes", "true"),
            ])
        #expect(both.status == 400)
        let badLocale = await h.stripeSession(extra: [("locale", "Klingon!")])
        #expect(badLocale == nil)
    }

    @Test func aStripeSessionTrialStartsTheSubscriptionTrialing() async throws {
        let h = Harness()
        let session = try #require(await h.stripeSession(extra: [("subscription_data[trial_period_days]", "7")]))
        let paid = await h.control("POST", "/checkouts/stripe/\(session)/pay")
        let id = try #require(paid.json?["subscription_id"]?.stringValue)
        let subscription = try #require(await h.stripe("GET", "/subscriptions/\(id)").json)
        #expect(subscription["status"]?.stringValue == "trialing" && subscription["trial_end"]?.intValue != nil)
    }
}
