import BillingModel
import JSONCodec

/// Normalises Lemon Squeezy webhook bodies (`{"meta":{…},"data":<JSON:API resource>}`)
/// into ``BillingEvent``s. Pure: no I/O, no signature checks (those happen
/// before, over the same raw bytes).
public enum LemonSqueezyWebhook: WebhookFormat {
    /// Event name → kind, for the 16 documented events plus `subscription_plan_changed`
    /// (offered by the dashboard per an open SDK PR). Anything else is `.unknown(name)`.
    static let kinds: [String: BillingEventKind] = [
        "order_created": .orderCreated,
        "order_refunded": .orderRefunded,
        "subscription_created": .subscriptionCreated,
        "subscription_updated": .subscriptionUpdated,
        "subscription_plan_changed": .subscriptionUpdated,
        "subscription_cancelled": .subscriptionCancelled,
        "subscription_resumed": .subscriptionResumed,
        "subscription_expired": .subscriptionExpired,
        "subscription_paused": .subscriptionPaused,
        "subscription_unpaused": .subscriptionUnpaused,
        "subscription_payment_success": .paymentSucceeded,
        "subscription_payment_failed": .paymentFailed,
        "subscription_payment_recovered": .paymentRecovered,
        "subscription_payment_refunded": .paymentRefunded,
        "license_key_created": .licenseKeyCreated,
        "license_key_updated": .licenseKeyUpdated,
    ]

    /// The kind for an event name (`.unknown(name)` when not listed).
    public static func kind(forEventName name: String) -> BillingEventKind {
        kinds[name] ?? .unknown(name)
    }

    /// `meta.event_name`.
    public static func eventName(root: JSONValue) -> String? {
        root["meta", "event_name"]?.string
    }

    /// Normalises a parsed delivery.
    /// - Throws: ``WebhookPayloadError`` for a body without `meta.event_name`.
    ///   Unknown event names are not errors.
    public static func normalize(root: JSONValue) throws(WebhookPayloadError) -> BillingEvent {
        let (name, meta) = try envelope(root)
        return try normalize(name: name, kind: kind(forEventName: name), meta: meta, data: root["data"])
    }

    /// The delivery's kind and ids alone (``WebhookFormat/keys(root:)``):
    /// the same checks and ids as ``normalize(root:)``.
    public static func keys(root: JSONValue) throws(WebhookPayloadError) -> BillingEvent {
        let (name, _) = try envelope(root)
        let data = root["data"]
        if let data, !data.isNull, data.object == nil { throw .unexpectedShape("data is not an object") }
        var event = BillingEvent(kind: kind(forEventName: name), provider: .lemonsqueezy, providerEventName: name, entityKey: "")
        readIDs(type: data?["type"]?.string ?? "", id: data?["id"]?.string, attributes: data?["attributes"] ?? .object([:]), into: &event)
        return event
    }

    /// `meta` and its `event_name`, which every delivery has.
    static func envelope(_ root: JSONValue) throws(WebhookPayloadError) -> (name: String, meta: JSONValue) {
        guard root.object != nil else { throw .unexpectedShape("top level is not an object") }
        guard let meta = root["meta"], meta.object != nil else { throw .missingField("meta") }
        guard let name = meta["event_name"]?.string else { throw .missingField("meta.event_name") }
        return (name, meta)
    }

    /// The ids of what a resource of `type` is about: the customer, and the
    /// order (with its identifier), subscription or invoice (the reconciler
    /// fetches by them).
    static func readIDs(type: String, id: String?, attributes: JSONValue, into event: inout BillingEvent) {
        event.customerID = attributes["customer_id"]?.string
        switch type {
        case "orders":
            event.orderID = id
            event.transactionReference = attributes["identifier"]?.string
        case "subscriptions":
            event.subscriptionID = id
            event.orderID = attributes["order_id"]?.string
        case "subscription-invoices":
            event.invoiceID = id
            event.subscriptionID = attributes["subscription_id"]?.string
        case "license-keys":
            event.orderID = attributes["order_id"]?.string
        default:
            break
        }
    }

    /// Normalises an API document (`GET /v1/subscriptions/{id}`, `GET /v1/orders/{id}`:
    /// `{"data": <resource>}`, the same resource a webhook carries, without
    /// `meta`) as an event of `kind` named `name`.
    /// - Throws: ``WebhookPayloadError`` for invalid JSON or a document without an object `data`.
    public static func normalize(document: [UInt8], name: String, kind: BillingEventKind) throws(WebhookPayloadError) -> BillingEvent {
        let root = try JSONValue.webhookBody(document)
        guard let data = root["data"], data.object != nil else { throw .missingField("data") }
        return try normalize(name: name, kind: kind, meta: .object([:]), data: data)
    }

    static func normalize(name: String, kind: BillingEventKind, meta: JSONValue, data: JSONValue?) throws(WebhookPayloadError) -> BillingEvent {
        if let data, !data.isNull, data.object == nil { throw .unexpectedShape("data is not an object") }

        let type = data?["type"]?.string ?? ""
        let id = data?["id"]?.string
        let attributes = data?["attributes"] ?? .object([:])

        var event = BillingEvent(kind: kind, provider: .lemonsqueezy, providerEventName: name, entityKey: "")
        event.customData = CustomData.flatten(meta["custom_data"])
        event.appUserID = CustomData.appUserID(in: event.customData)
        event.checkoutID = event.customData[CustomDataKeys.checkoutID]
        event.testMode = meta["test_mode"]?.bool ?? attributes["test_mode"]?.bool
        readIDs(type: type, id: id, attributes: attributes, into: &event)
        event.customerEmail = attributes["user_email"]?.string
        event.status = attributes["status"]?.string
        event.createdAt = attributes["created_at"]?.date
        event.updatedAt = attributes["updated_at"]?.date
        event.orderingTimestamp = event.updatedAt ?? event.createdAt
        event.cardBrand = attributes["card_brand"]?.string
        event.cardLastFour = attributes["card_last_four"]?.string

        switch type {
        case "orders":
            event.amount = attributes["total"]?.int64
            event.currency = attributes["currency"]?.string
            let item = attributes["first_order_item"]
            event.productID = item?["product_id"]?.string
            event.variantID = item?["variant_id"]?.string
            event.planName = item?["product_name"]?.string
            event.refundedAmount = refunded(attributes)
        case "subscriptions":
            event.productID = attributes["product_id"]?.string
            event.variantID = attributes["variant_id"]?.string
            event.planName = attributes["product_name"]?.string
            event.cancelled = attributes["cancelled"]?.bool
            event.renewsAt = attributes["renews_at"]?.date
            event.endsAt = attributes["ends_at"]?.date
            event.trialEndsAt = attributes["trial_ends_at"]?.date
            event.nextPaymentDate = event.renewsAt
            event.customerPortalURL = attributes["urls", "customer_portal"]?.string
            event.updatePaymentMethodURL = attributes["urls", "update_payment_method"]?.string
            event.pauseMode = attributes["pause", "mode"]?.string
            event.pauseResumesAt = attributes["pause", "resumes_at"]?.date
        case "subscription-invoices":
            event.amount = attributes["total"]?.int64
            event.currency = attributes["currency"]?.string
            if event.status == "paid" { event.paidAt = event.updatedAt ?? event.createdAt }
            event.refundedAmount = refunded(attributes)
        case "license-keys":
            event.productID = attributes["product_id"]?.string
        default:
            break
        }
        event.entityKey = entityKey(type: type, id: id, event: event)
        return event
    }

    /// `refunded_amount` (cumulative, minor units) once something was
    /// refunded; nil while nothing was. `total` stays the amount paid, so a
    /// partial refund (`partial_refund`, `partial_refunded`) is told from a
    /// full one by comparing the two.
    static func refunded(_ attributes: JSONValue) -> Int64? {
        guard let amount = attributes["refunded_amount"]?.int64, amount > 0 else { return nil }
        return amount
    }

    /// `lemonsqueezy:sub_<subscription id>` for subscription and invoice events
    /// (so one subscription's events stay in order), `lemonsqueezy:order_<id>`
    /// for orders and license keys, else `lemonsqueezy:customer_<id>`, else
    /// `lemonsqueezy:<data.type>_<data.id>`, else `lemonsqueezy:unknown`.
    static func entityKey(type: String, id: String?, event: BillingEvent) -> String {
        if let subscription = event.subscriptionID { return TopicKey.make(.lemonsqueezy, "sub_\(subscription)") }
        if let order = event.orderID { return TopicKey.make(.lemonsqueezy, "order_\(order)") }
        if let customer = event.customerID { return TopicKey.make(.lemonsqueezy, "customer_\(customer)") }
        if let id, !type.isEmpty { return TopicKey.make(.lemonsqueezy, "\(type)_\(id)") }
        return TopicKey.make(.lemonsqueezy, "unknown")
    }

    /// Dedup key of a delivery. Lemon Squeezy puts a per-event UUID in
    /// `meta.webhook_id` (captured deliveries show a different one per event;
    /// the docs do not promise it is stable across resends): when present and
    /// not all zeros, the key is `lemonsqueezy:<webhook_id>`. Otherwise
    /// `lemonsqueezy:sha256:<hex of the raw body>`. `root` is nil when the body is not JSON.
    public static func dedupKey(root: JSONValue?, body: [UInt8]) -> String {
        if let webhookID = root?["meta", "webhook_id"]?.string, isUsableUUID(webhookID) {
            return "lemonsqueezy:\(webhookID.lowercased())"
        }
        return "lemonsqueezy:sha256:\(bodyDigest(body))"
    }

    static func isUsableUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        var sawNonZero = false
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return false }
                continue
            }
            let isHex = (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x66)
            guard isHex else { return false }
            if byte != UInt8(ascii: "0") { sawNonZero = true }
        }
        return sawNonZero
    }
}
