import Foundation
import BillingModel
import JSONCodec
import Webhooks

/// Request bodies of the Lemon Squeezy API, snake_case as the API expects.
enum LemonSqueezyRequests {
    /// The JSON:API document of `POST /v1/checkouts`. A promotion code goes
    /// in `checkout_data.discount_code`. The locale goes nowhere: the
    /// checkout API documents no language parameter (the hosted page picks
    /// its own), and a trial is the variant's, not the checkout's.
    static func checkout(_ request: CheckoutRequest, storeID: String, testMode: Bool) -> JSONValue {
        var checkoutData: JSONObject = ["custom": .object(JSONObject(request.customData.mapValues(JSONValue.string)))]
        if let email = request.email { checkoutData["email"] = .string(email.value) }
        if let code = request.promotionCode { checkoutData["discount_code"] = .string(code) }
        var attributes: JSONObject = ["checkout_data": .object(checkoutData)]
        if let redirect = request.redirectURL { attributes["product_options"] = ["redirect_url": .string(redirect)] }
        if let expires = request.expiresAt { attributes["expires_at"] = .string(Timestamp.format(expires)) }
        if testMode { attributes["test_mode"] = true }
        return [
            "data": [
                "type": "checkouts",
                "attributes": .object(attributes),
                "relationships": [
                    "store": ["data": ["type": "stores", "id": .string(storeID)]],
                    "variant": ["data": ["type": "variants", "id": .string(request.variantID)]],
                ],
            ]
        ]
    }

    /// The JSON:API document of `POST /v1/orders/{id}/refund` and
    /// `POST /v1/subscription-invoices/{id}/refund`: `amount` in cents for a
    /// partial refund; without it Lemon Squeezy refunds all that is left.
    static func refund(type: String, id: String, amount: Int64?) -> JSONValue {
        var attributes: JSONObject = [:]
        if let amount { attributes["amount"] = .integer(amount) }
        return ["data": ["type": .string(type), "id": .string(id), "attributes": .object(attributes)]]
    }
}
