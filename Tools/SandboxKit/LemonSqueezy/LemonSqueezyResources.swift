import Foundation

/// Builds Lemon Squeezy JSON:API resource objects with the fields of the fixtures.
struct LemonSqueezyResources {
    let context: SandboxContext
    var base: String { context.lsAPIBase }
    var catalog: LemonSqueezyCatalog { context.catalog.lemonSqueezy }

    func ts(_ date: Date) -> JSONValue { .string(Formatting.lemonSqueezy(date)) }
    func ts(_ date: Date?) -> JSONValue { date.map { ts($0) } ?? .null }

    func relationships(_ type: String, _ id: String, _ names: [String], data: [String: JSONValue] = [:]) -> JSONValue {
        .object(
            names.map { name in
                var rel: JSONValue = [
                    "links": ["related": .string("\(base)/\(type)/\(id)/\(name)"), "self": .string("\(base)/\(type)/\(id)/relationships/\(name)")]
                ]
                if let linkage = data[name] { rel = rel.setting("data", linkage) }
                return JSONField(key: name, value: rel)
            })
    }

    func resource(_ type: String, _ id: String, _ attributes: JSONValue, _ relationshipNames: [String], data: [String: JSONValue] = [:]) -> JSONValue
    {
        [
            "type": .string(type),
            "id": .string(id),
            "attributes": attributes,
            "relationships": relationships(type, id, relationshipNames, data: data),
            "links": ["self": .string("\(base)/\(type)/\(id)")],
        ]
    }

    /// `{"jsonapi":…,"links":{"self":…},"data":…}` for one resource.
    func document(_ resource: JSONValue, selfPath: String, included: [JSONValue]? = nil) -> JSONValue {
        var doc: JSONValue = ["jsonapi": ["version": "1.0"], "links": ["self": .string(base + selfPath)], "data": resource]
        if let included { doc = doc.setting("included", .array(included)) }
        return doc
    }

    func buyNowURL(variantID: Int) -> String { "\(context.publicBase)/checkout/lemonsqueezy/buy/\(variantID)" }

    func product(_ p: LemonSqueezyCatalog.Product, linkVariants: Bool) -> JSONValue {
        let variants = p.variants.sorted { $0.sort < $1.sort }
        let prices = variants.map(\.price)
        let several = variants.count > 1
        let attributes: JSONValue = [
            "store_id": .int(catalog.store.id),
            "name": .string(p.name),
            "slug": .string(p.slug),
            "description": .string(p.description),
            "status": .string(p.status),
            "status_formatted": .string(p.status.capitalized),
            "thumb_url": "",
            "large_thumb_url": "",
            "price": .int(variants.first?.price ?? 0),
            "price_formatted": .string(Formatting.usd(variants.first?.price ?? 0)),
            "from_price": several ? .int(prices.min()!) : .null,
            "to_price": several ? .int(prices.max()!) : .null,
            "from_price_formatted": several ? .string(Formatting.usd(prices.min()!)) : .null,
            "to_price_formatted": several ? .string(Formatting.usd(prices.max()!)) : .null,
            "pay_what_you_want": false,
            "buy_now_url": .string(buyNowURL(variantID: variants.first?.id ?? 0)),
            "created_at": ts(SandboxContext.catalogDate),
            "updated_at": ts(SandboxContext.catalogDate),
            "test_mode": true,
        ]
        let linkage: [String: JSONValue] =
            linkVariants
            ? ["variants": .array(variants.map { ["type": "variants", "id": .string(String($0.id))] })] : [:]
        return resource("products", String(p.id), attributes, ["store", "variants"], data: linkage)
    }

    func variant(_ v: LemonSqueezyCatalog.Variant, productID: Int) -> JSONValue {
        let attributes: JSONValue = [
            "product_id": .int(productID),
            "name": .string(v.name),
            "slug": .string(v.slug),
            "description": "",
            "price": .int(v.price),
            "is_subscription": .bool(v.isSubscription),
            "interval": JSONValue(v.interval),
            "interval_count": JSONValue(v.intervalCount),
            "has_free_trial": .bool(v.hasFreeTrial),
            "trial_interval": .string(v.trialInterval ?? "day"),
            "trial_interval_count": .int(v.hasFreeTrial ? v.trialIntervalCount ?? 0 : 0),
            "pay_what_you_want": false,
            "min_price": 0,
            "suggested_price": 0,
            "has_license_keys": false,
            "license_activation_limit": 0,
            "is_license_limit_unlimited": false,
            "license_length_value": 0,
            "license_length_unit": "years",
            "is_license_length_unlimited": false,
            "links": [],
            "sort": .int(v.sort),
            "status": .string(v.status),
            "status_formatted": .string(v.status.capitalized),
            "created_at": ts(SandboxContext.catalogDate),
            "updated_at": ts(SandboxContext.catalogDate),
            "test_mode": true,
        ]
        return resource("variants", String(v.id), attributes, ["product", "files", "price-model"])
    }

    func checkoutURL(_ c: LSCheckout) -> String {
        var url = "\(context.publicBase)/checkout/lemonsqueezy/\(c.id)"
        var query: [(String, String)] = []
        if let expires = c.expiresAt { query.append(("expires", String(Int(expires.timeIntervalSince1970)))) }
        query.append(("signature", context.urlSignature(c.id)))
        url += "?" + FormDecoding.encode(query)
        return url
    }

    func checkout(_ c: LSCheckout) -> JSONValue {
        let attributes: JSONValue = [
            "store_id": .int(c.storeID),
            "variant_id": .int(c.variantID),
            "custom_price": JSONValue(c.customPrice),
            "product_options": c.productOptions,
            "checkout_options": c.checkoutOptions,
            "checkout_data": [
                "email": .string(c.email),
                "name": .string(c.name),
                "billing_address": .null,
                "tax_number": "",
                "discount_code": .string(c.discountCode ?? ""),
                "custom": c.custom ?? .null,
            ],
            "preview": false,
            "expires_at": ts(c.expiresAt),
            "created_at": ts(c.createdAt),
            "updated_at": ts(c.createdAt),
            "test_mode": .bool(c.testMode),
            "url": .string(checkoutURL(c)),
        ]
        return resource("checkouts", c.id, attributes, ["store", "variant"])
    }

    func order(_ o: LSOrder) -> JSONValue {
        let attributes: JSONValue = [
            "store_id": .int(o.storeID),
            "customer_id": .int(o.customerID),
            "identifier": .string(o.identifier),
            "order_number": .int(o.orderNumber),
            "user_name": .string(o.userName),
            "user_email": .string(o.userEmail),
            "currency": .string(catalog.store.currency),
            "currency_rate": "1.0000",
            "subtotal": .int(o.total + o.discountTotal),
            "setup_fee": 0,
            "discount_total": .int(o.discountTotal),
            "tax": 0,
            "total": .int(o.total),
            "refunded_amount": .int(o.refundedAmount),
            "subtotal_usd": .int(o.total + o.discountTotal),
            "setup_fee_usd": 0,
            "discount_total_usd": .int(o.discountTotal),
            "tax_usd": 0,
            "total_usd": .int(o.total),
            "refunded_amount_usd": .int(o.refundedAmount),
            "tax_name": .null,
            "tax_rate": "0.00",
            "tax_inclusive": false,
            "status": .string(o.status),
            "status_formatted": .string(Self.statusFormatted(o.status)),
            "refunded": .bool(o.refunded),
            "refunded_at": ts(o.refundedAt),
            "subtotal_formatted": .string(Formatting.usd(o.total + o.discountTotal)),
            "setup_fee_formatted": "$0.00",
            "discount_total_formatted": .string(Formatting.usd(o.discountTotal)),
            "tax_formatted": "$0.00",
            "total_formatted": .string(Formatting.usd(o.total)),
            "refunded_amount_formatted": .string(Formatting.usd(o.refundedAmount)),
            "first_order_item": [
                "id": .int(o.orderItemID),
                "order_id": .int(o.id),
                "product_id": .int(o.productID),
                "variant_id": .int(o.variantID),
                "price_id": .int(o.variantID),
                "quantity": 1,
                "product_name": .string(o.productName),
                "variant_name": .string(o.variantName),
                "price": .int(o.total + o.discountTotal),
                "created_at": ts(o.createdAt),
                "updated_at": ts(o.createdAt),
                "test_mode": .bool(o.testMode),
            ],
            "urls": [
                "receipt": .string("\(context.publicBase)/receipt/lemonsqueezy/\(o.identifier)?signature=\(context.urlSignature(o.identifier))")
            ],
            "created_at": ts(o.createdAt),
            "updated_at": ts(o.updatedAt),
            "test_mode": .bool(o.testMode),
        ]
        return resource(
            "orders", String(o.id), attributes, ["store", "customer", "order-items", "subscriptions", "license-keys", "discount-redemptions"])
    }

    static func statusFormatted(_ status: String) -> String {
        status.split(separator: "_").enumerated().map { $0.offset == 0 ? $0.element.capitalized : String($0.element) }.joined(separator: " ")
    }

    func subscription(_ s: LSSubscription) -> JSONValue {
        let portal = "\(context.publicBase)/manage/lemonsqueezy/\(s.id)"
        let pause: JSONValue = s.pauseMode.map { ["mode": .string($0), "resumes_at": ts(s.pauseResumesAt)] } ?? .null
        let attributes: JSONValue = [
            "store_id": .int(s.storeID),
            "customer_id": .int(s.customerID),
            "order_id": .int(s.orderID),
            "order_item_id": .int(s.orderItemID),
            "product_id": .int(s.productID),
            "variant_id": .int(s.variantID),
            "product_name": .string(s.productName),
            "variant_name": .string(s.variantName),
            "user_name": .string(s.userName),
            "user_email": .string(s.userEmail),
            "status": .string(s.status),
            "status_formatted": .string(Self.statusFormatted(s.status)),
            "card_brand": .string(s.cardBrand),
            "card_last_four": .string(s.cardLastFour),
            "payment_processor": "stripe",
            "pause": pause,
            "cancelled": .bool(s.cancelled),
            "trial_ends_at": ts(s.trialEndsAt),
            "billing_anchor": .int(s.billingAnchor),
            "first_subscription_item": [
                "id": .int(s.subscriptionItemID),
                "subscription_id": .int(s.id),
                "price_id": .int(s.priceID),
                "quantity": 1,
                "is_usage_based": false,
                "created_at": ts(s.createdAt),
                "updated_at": ts(s.createdAt),
            ],
            "urls": [
                "update_payment_method": .string("\(portal)/payment-details?signature=\(context.urlSignature("pm\(s.id)"))"),
                "customer_portal": .string("\(portal)?signature=\(context.urlSignature("portal\(s.id)"))"),
                "customer_portal_update_subscription": .string("\(portal)/update?signature=\(context.urlSignature("update\(s.id)"))"),
            ],
            "renews_at": ts(s.renewsAt),
            "ends_at": ts(s.endsAt),
            "created_at": ts(s.createdAt),
            "updated_at": ts(s.updatedAt),
            "test_mode": .bool(s.testMode),
        ]
        return resource(
            "subscriptions", String(s.id), attributes,
            ["store", "customer", "order", "order-item", "product", "variant", "subscription-items", "subscription-invoices"])
    }

    func invoice(_ i: LSInvoice) -> JSONValue {
        let refundedAmount = i.refundedAmount
        let attributes: JSONValue = [
            "store_id": .int(i.storeID),
            "subscription_id": .int(i.subscriptionID),
            "customer_id": .int(i.customerID),
            "user_name": .string(i.userName),
            "user_email": .string(i.userEmail),
            "billing_reason": .string(i.billingReason),
            "card_brand": .string(i.cardBrand),
            "card_last_four": .string(i.cardLastFour),
            "currency": .string(catalog.store.currency),
            "currency_rate": "1.00000000",
            "status": .string(i.status),
            "status_formatted": .string(Self.statusFormatted(i.status)),
            "refunded": .bool(i.refunded),
            "refunded_at": ts(i.refundedAt),
            "subtotal": .int(i.total + i.discountTotal),
            "discount_total": .int(i.discountTotal),
            "tax": 0,
            "tax_inclusive": false,
            "total": .int(i.total),
            "refunded_amount": .int(refundedAmount),
            "subtotal_usd": .int(i.total + i.discountTotal),
            "discount_total_usd": .int(i.discountTotal),
            "tax_usd": 0,
            "total_usd": .int(i.total),
            "refunded_amount_usd": .int(refundedAmount),
            "subtotal_formatted": .string(Formatting.usd(i.total + i.discountTotal)),
            "discount_total_formatted": .string(Formatting.usd(i.discountTotal)),
            "tax_formatted": "$0.00",
            "total_formatted": .string(Formatting.usd(i.total)),
            "refunded_amount_formatted": .string(Formatting.usd(refundedAmount)),
            "urls": ["invoice_url": .string("\(context.publicBase)/invoice/lemonsqueezy/\(i.id)?signature=\(context.urlSignature("inv\(i.id)"))")],
            "created_at": ts(i.createdAt),
            "updated_at": ts(i.updatedAt),
            "test_mode": .bool(i.testMode),
        ]
        return resource("subscription-invoices", String(i.id), attributes, ["store", "subscription", "customer"])
    }
}
