/// Builds Lemon Squeezy webhook bodies: `{"meta":{…},"data":<resource>}`.
///
/// `meta` carries `test_mode`, `event_name`, `webhook_id` (a fresh UUID per
/// event, as in captured deliveries) and `custom_data` only when the checkout
/// had custom data, which Lemon Squeezy echoes on order, subscription and
/// subscription-invoice events.
enum LemonSqueezyWebhooks {
    static func event(_ name: String, data: JSONValue, custom: JSONValue?, testMode: Bool, state: inout SandboxState) -> OutgoingWebhook {
        var meta: JSONValue = [
            "test_mode": .bool(testMode),
            "event_name": .string(name),
            "webhook_id": .string(Formatting.uuid(9, state.next(.lsWebhook))),
        ]
        if let custom, !custom.isNull { meta = meta.setting("custom_data", custom) }
        return OutgoingWebhook(provider: .lemonSqueezy, eventName: name, payload: ["meta": meta, "data": data])
    }
}
