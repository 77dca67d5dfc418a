import Foundation

extension StripeCatalog {
    /// A promotion code and the coupon it redeems (Stripe's `promotion_code`
    /// with its `coupon`): a percentage or an amount off, perhaps expiring or
    /// limited to some products. The sandbox's coupons are `duration: once`:
    /// they lower the first payment only.
    struct PromotionCode: Sendable {
        let id: String
        /// What buyers type; Stripe matches it case-insensitively.
        let code: String
        let couponID: String
        let percentOff: Int?
        let amountOff: Int?
        let active: Bool
        let expiresAt: Date?
        /// `coupon.applies_to.products`; nil: every product.
        let products: [String]?

        /// Active and not expired at `now` (Stripe lists an expired code as inactive).
        func isActive(at now: Date) -> Bool { active && (expiresAt.map { $0 > now } ?? true) }

        /// The cents it takes off `amount` (never more than the amount).
        func reduction(of amount: Int) -> Int {
            if let percentOff { return amount * min(max(percentOff, 0), 100) / 100 }
            return min(amount, max(amountOff ?? 0, 0))
        }
    }

    func promotionCode(_ id: String) -> PromotionCode? { promotionCodes.first { $0.id == id } }

    /// 20 % off anything, $1 off, an expired code and one for Pro Icons only.
    static let standardPromotionCodes: [PromotionCode] = [
        PromotionCode(
            id: "promo_SbxSpring20", code: "SPRING20", couponID: "SbxSpring20", percentOff: 20, amountOff: nil, active: true, expiresAt: nil,
            products: nil),
        PromotionCode(
            id: "promo_SbxDollarOff", code: "DOLLAROFF", couponID: "SbxDollarOff", percentOff: nil, amountOff: 100, active: true,
            expiresAt: nil, products: nil),
        PromotionCode(
            id: "promo_SbxExpired10", code: "EXPIRED10", couponID: "SbxExpired10", percentOff: 10, amountOff: nil, active: true,
            expiresAt: Date(timeIntervalSince1970: 1_577_836_800), products: nil),
        PromotionCode(
            id: "promo_SbxIcons50", code: "ICONS50", couponID: "SbxIcons50", percentOff: 50, amountOff: nil, active: true, expiresAt: nil,
            products: ["prod_SbxProIcons"]),
    ]
}

extension StripeResources {
    /// A PromotionCode with its coupon (API `2025-03-31.basil`: `coupon` inline).
    func promotionCode(_ p: StripeCatalog.PromotionCode, now: Date) -> JSONValue {
        let coupon: JSONValue = [
            "id": .string(p.couponID), "object": "coupon", "amount_off": JSONValue(p.amountOff),
            "applies_to": p.products.map { ["products": .array($0.map(JSONValue.string))] } ?? .null,
            "currency": p.amountOff == nil ? .null : "usd", "duration": "once", "livemode": false, "percent_off": JSONValue(p.percentOff),
            "valid": .bool(p.isActive(at: now)),
        ]
        return [
            "id": .string(p.id), "object": "promotion_code", "active": .bool(p.isActive(at: now)), "code": .string(p.code), "coupon": coupon,
            "created": Self.ts(SandboxContext.catalogDate), "customer": nil, "expires_at": Self.ts(p.expiresAt), "livemode": false,
            "max_redemptions": nil, "metadata": [:], "times_redeemed": 0,
        ]
    }
}

extension StripeAPI {
    /// `GET /v1/promotion_codes`: `code` (case-insensitive), `active`, cursor pagination.
    func listPromotionCodes(_ request: SandboxRequest) -> SandboxResponse {
        let now = context.clock.now()
        var codes = resources.catalog.promotionCodes
        if let code = request.queryValue("code") { codes = codes.filter { $0.code.lowercased() == code.lowercased() } }
        if let active = request.queryValue("active") { codes = codes.filter { String($0.isActive(at: now)) == active } }
        let byID = Dictionary(uniqueKeysWithValues: codes.map { ($0.id, $0) })
        return page(request, ids: codes.map(\.id), url: "/v1/promotion_codes") { resources.promotionCode(byID[$0]!, now: now) }
    }

    /// The promotion code of a session's `discounts[0][promotion_code]`, or
    /// Stripe's refusal: missing, inactive or expired, or not for this product.
    func sessionPromotionCode(_ params: JSONValue, price: StripeCatalog.Price) -> Result<StripeCatalog.PromotionCode?, SandboxErrorResponse> {
        let param = "discounts[0][promotion_code]"
        guard let discounts = params["discounts"], !discounts.isNull else { return .success(nil) }
        if params["allow_promotion_codes"]?.stringValue == "true" {
            return .failure(
                SandboxErrorResponse(
                    StripeErrors.invalid("You may only specify one of these parameters: allow_promotion_codes, discounts.", param: "discounts")))
        }
        guard let items = discounts.arrayValue, items.count == 1, let id = items[0]["promotion_code"]?.stringValue else {
            return .failure(SandboxErrorResponse(StripeErrors.invalid("The sandbox takes one discount: a promotion_code.", param: "discounts")))
        }
        guard let code = resources.catalog.promotionCode(id) else {
            return .failure(SandboxErrorResponse(StripeErrors.missing("promotion_code", id, param: param)))
        }
        guard code.isActive(at: context.clock.now()) else {
            return .failure(SandboxErrorResponse(StripeErrors.invalid("This promotion code is not active.", param: param)))
        }
        if let products = code.products, !products.contains(price.productID) {
            return .failure(
                SandboxErrorResponse(StripeErrors.invalid("This promotion code cannot be applied to the items in this session.", param: param)))
        }
        return .success(code)
    }
}

/// A refusal as an `Error`, so it can travel in a `Result`.
struct SandboxErrorResponse: Error {
    let response: SandboxResponse
    init(_ response: SandboxResponse) { self.response = response }
}
