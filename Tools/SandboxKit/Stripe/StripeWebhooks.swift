import Foundation

/// Builds Stripe event bodies: `{"id":"evt_…","object":"event","api_version",
/// "created","data":{"object",["previous_attributes"]},"livemode",
/// "pending_webhooks","request":{"id","idempotency_key"},"type"}`.
struct StripeWebhooks {
    let now: Date

    func event(
        _ type: String, _ object: JSONValue, previous: [JSONField]? = nil, request: String? = nil, state: inout StripeState
    )
        -> OutgoingWebhook
    {
        var data = [JSONField(key: "object", value: object)]
        if let previous { data.append(JSONField(key: "previous_attributes", value: .object(previous))) }
        let payload: JSONValue = [
            "id": .string(state.id("evt_", .event)), "object": "event", "api_version": .string(StripeResources.apiVersion),
            "created": StripeResources.ts(now), "data": .object(data), "livemode": false, "pending_webhooks": 1,
            "request": ["id": JSONValue(request), "idempotency_key": nil], "type": .string(type),
        ]
        return OutgoingWebhook(provider: .stripe, eventName: type, payload: payload)
    }

    /// The `Stripe-Signature` value for `body` sent at `time`: `t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">`.
    /// Stripe signs each attempt afresh, so a retry carries its own timestamp.
    static func signature(body: [UInt8], at time: Date, secret: String, signer: SandboxSigner) -> String {
        let t = Int(time.timeIntervalSince1970)
        return "t=\(t),v1=" + signer.hmacSHA256Hex(Array(secret.utf8), Array("\(t).".utf8) + body)
    }
}
