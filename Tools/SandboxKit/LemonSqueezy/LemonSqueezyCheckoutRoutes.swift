import Foundation

/// `POST /v1/checkouts` and `GET /v1/checkouts/{id}`.
extension LemonSqueezyAPI {
    func createCheckout(_ request: SandboxRequest) throws(SandboxError) -> SandboxResponse {
        guard request.body.count <= 64 * 1024, let body = JSONValue.parse(request.body), let data = body["data"], data.objectValue != nil else {
            throw .invalid("The request body must be a JSON:API document with a data object.", pointer: "/data")
        }
        if let type = data["type"]?.stringValue, type != "checkouts" { throw .invalid("The type must be checkouts.", pointer: "/data/type") }
        let attributes = data["attributes"] ?? [:]
        guard let storeText = data["relationships"]?["store"]?["data"]?["id"], let storeID = storeText.intValue else {
            throw .invalid("The store field is required.", pointer: "/data/relationships/store")
        }
        guard storeID == resources.catalog.store.id else { throw .invalid("The selected store is invalid.", pointer: "/data/relationships/store") }
        guard let variantText = data["relationships"]?["variant"]?["data"]?["id"], let variantID = variantText.intValue else {
            throw .invalid("The variant field is required.", pointer: "/data/relationships/variant")
        }
        guard let (product, _) = resources.catalog.variant(id: variantID), product.status == "published" else {
            throw .invalid("The selected variant is invalid.", pointer: "/data/relationships/variant")
        }
        let checkoutData = attributes["checkout_data"] ?? [:]
        guard checkoutData.isNull || checkoutData.objectValue != nil else {
            throw .invalid("The checkout data must be an array.", pointer: "/data/attributes/checkout_data")
        }
        let custom = checkoutData["custom"]
        if let custom, !custom.isNull, custom.objectValue == nil {
            throw .invalid("The checkout data.custom must be an array.", pointer: "/data/attributes/checkout_data/custom")
        }
        // A discount code is checked now, as Lemon Squeezy does: a refused one fails the checkout's creation.
        var discountCode: String?
        if let code = checkoutData["discount_code"], !code.isNull {
            guard let text = code.stringValue else {
                throw .invalid("The discount code must be a string.", pointer: "/data/attributes/checkout_data/discount_code")
            }
            if !text.isEmpty {
                discountCode = try resources.catalog.discount(code: text, variantID: variantID, now: context.clock.now()).code
            }
        }
        var expiresAt: Date?
        if let expires = attributes["expires_at"], !expires.isNull {
            guard let text = expires.stringValue, let date = Formatting.parseISO(text) else {
                throw .invalid("The expires at is not a valid date.", pointer: "/data/attributes/expires_at")
            }
            expiresAt = date
        }
        var customPrice: Int?
        if let price = attributes["custom_price"], !price.isNull {
            guard let cents = price.intValue, cents >= 0 else {
                throw .invalid("The custom price must be an integer.", pointer: "/data/attributes/custom_price")
            }
            customPrice = cents
        }
        let productOptions = Self.merge(
            defaults: [
                "name": "", "description": "", "media": [], "redirect_url": "", "receipt_button_text": "", "receipt_link_url": "",
                "receipt_thank_you_note": "", "enabled_variants": [],
            ], with: attributes["product_options"])
        let checkoutOptions = Self.merge(
            defaults: [
                "embed": false, "media": true, "logo": true, "desc": true, "discount": true, "dark": false, "subscription_preview": true,
            ], with: attributes["checkout_options"])
        let now = context.clock.now()
        let checkout = try store.withState { (state) throws(SandboxError) -> LSCheckout in
            let checkout = LSCheckout(
                id: Formatting.uuid(1, state.next(.lsCheckout)), storeID: storeID, variantID: variantID, customPrice: customPrice,
                productOptions: productOptions, checkoutOptions: checkoutOptions,
                email: String((checkoutData["email"]?.stringValue ?? "").prefix(254)),
                name: String((checkoutData["name"]?.stringValue ?? "").prefix(200)),
                custom: custom.flatMap { $0.isNull ? nil : $0 }, expiresAt: expiresAt,
                testMode: attributes["test_mode"]?.boolValue ?? true, createdAt: now, paidOrderID: nil, discountCode: discountCode)
            state.lsCheckouts[checkout.id] = checkout
            return checkout
        }
        return ok(resources.document(resources.checkout(checkout), selfPath: "/checkouts/\(checkout.id)"), status: 201)
    }

    func getCheckout(_ id: String) throws(SandboxError) -> SandboxResponse {
        guard let checkout = store.read({ $0.lsCheckouts[id] }) else { throw .notFound("No checkout \(id).") }
        return ok(resources.document(resources.checkout(checkout), selfPath: "/checkouts/\(id)"))
    }

    /// The defaults, overridden key by key by the client's object (unknown keys kept).
    static func merge(defaults: JSONValue, with given: JSONValue?) -> JSONValue {
        guard let fields = given?.objectValue else { return defaults }
        return fields.reduce(defaults) { $0.setting($1.key, $1.value) }
    }
}
