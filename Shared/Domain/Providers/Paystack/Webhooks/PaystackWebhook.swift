import Foundation
import BillingModel
import JSONCodec

/// Normalises Paystack webhook bodies (`{"event":"…","data":{…}}`) into
/// ``BillingEvent``s. Pure: no I/O, no signature checks.
public enum PaystackWebhook: WebhookFormat {
    static let kinds: [String: BillingEventKind] = [
        "subscription.create": .subscriptionCreated,
        "subscription.not_renew": .subscriptionNotRenewing,
        "subscription.disable": .subscriptionDisabled,
        "subscription.expiring_cards": .expiringCards,
        "invoice.create": .invoiceCreated,
        "invoice.update": .invoiceUpdated,
        "invoice.payment_failed": .paymentFailed,
        "refund.pending": .refundPending,
        "refund.processing": .refundProcessing,
        "refund.processed": .refundProcessed,
        "refund.failed": .refundFailed,
        "refund.needs-attention": .refundNeedsAttention,
        "charge.dispute.create": .disputeCreated,
        "charge.dispute.remind": .disputeReminder,
        "charge.dispute.resolve": .disputeResolved,
    ]

    /// The kind for an event; `charge.success` depends on the payload (see ``normalize(root:)``).
    /// `transfer.*`, `paymentrequest.*`, `customeridentification.*`,
    /// `dedicatedaccount.*` and anything new are `.unknown(name)`.
    public static func kind(forEventName name: String, hasPlan: Bool = false) -> BillingEventKind {
        if name == "charge.success" { return hasPlan ? .paymentSucceeded : .orderCreated }
        return kinds[name] ?? .unknown(name)
    }

    /// `event`.
    public static func eventName(root: JSONValue) -> String? {
        root["event"]?.string
    }

    /// Normalises a parsed delivery.
    ///
    /// `charge.success` becomes `.paymentSucceeded` when `data.plan` names a
    /// plan (a subscription charge: first payment or renewal) and
    /// `.orderCreated` otherwise (a one-time purchase). `metadata` may be an
    /// object, a JSON string, `""`, `0` or `null`; all are accepted.
    /// - Throws: ``WebhookPayloadError`` for a body without `event`.
    public static func normalize(root: JSONValue) throws(WebhookPayloadError) -> BillingEvent {
        guard root.object != nil else { throw .unexpectedShape("top level is not an object") }
        guard let name = root["event"]?.string else { throw .missingField("event") }
        return try normalize(name: name, kind: nil, data: root["data"] ?? .null)
    }

    /// Normalises an API envelope (`GET /subscription/{code}`,
    /// `GET /transaction/verify/{reference}`: `{"status":true,"data":{…}}`, the
    /// same object a webhook carries) as an event named `name`. `kind` nil
    /// reads it as the webhook of that name would be read (a transaction as
    /// `charge.success`: `.orderCreated`, or `.paymentSucceeded` with a plan).
    /// - Throws: ``WebhookPayloadError`` for invalid JSON or an envelope without an object `data`.
    public static func normalize(envelope: [UInt8], name: String, kind: BillingEventKind?) throws(WebhookPayloadError) -> BillingEvent {
        let root = try JSONValue.webhookBody(envelope)
        guard let data = root["data"], data.object != nil else { throw .missingField("data") }
        return try normalize(name: name, kind: kind, data: data)
    }

    /// The delivery's kind and ids alone (``WebhookFormat/keys(root:)``):
    /// the same checks and ids as ``normalize(root:)``.
    public static func keys(root: JSONValue) throws(WebhookPayloadError) -> BillingEvent {
        guard root.object != nil else { throw .unexpectedShape("top level is not an object") }
        guard let name = root["event"]?.string else { throw .missingField("event") }
        let data = try object(root["data"] ?? .null)
        var event = BillingEvent(kind: kind(name: name, plan: plan(data)), provider: .paystack, providerEventName: name, entityKey: "")
        readIDs(name: name, data: data, into: &event)
        return event
    }

    /// `data`, the object a delivery is about. subscription.expiring_cards
    /// sends an array of notices; read the first (the kind tells the
    /// projector to look at the raw payload for the rest).
    static func object(_ data: JSONValue) throws(WebhookPayloadError) -> JSONValue {
        var data = data
        if let items = data.array { data = items.first ?? .null }
        if !data.isNull, data.object == nil { throw .unexpectedShape("data is not an object") }
        return data
    }

    /// The plan a body names: its own, or its subscription's.
    static func plan(_ data: JSONValue) -> JSONValue? {
        data["plan"]?.nonEmptyObject.map(JSONValue.object) ?? data["subscription", "plan"]?.nonEmptyObject.map(JSONValue.object)
    }

    /// A webhook's kind; `charge.success` by whether it names a plan.
    static func kind(name: String, plan: JSONValue?) -> BillingEventKind {
        kind(forEventName: name, hasPlan: name == "charge.success" && plan?["plan_code"]?.string != nil)
    }

    /// The ids of what a body is about (the reconciler fetches by them): its
    /// customer, subscription, transaction, charge and invoice, where each
    /// kind of body holds them.
    static func readIDs(name: String, data: JSONValue, into event: inout BillingEvent) {
        event.customerID = data["customer", "customer_code"]?.string
        event.subscriptionID = data["subscription_code"]?.string
        if name.hasPrefix("charge.dispute.") {
            event.transactionReference = data["transaction", "reference"]?.string
        } else if name.hasPrefix("charge.") {
            event.transactionReference = data["reference"]?.string
            event.orderID = data["id"]?.string
        } else if name.hasPrefix("invoice.") {
            event.invoiceID = data["invoice_code"]?.string
            event.subscriptionID = data["subscription", "subscription_code"]?.string
            event.transactionReference = data["transaction", "reference"]?.string
        } else if name.hasPrefix("refund.") {
            event.transactionReference = data["transaction_reference"]?.string
        } else if name == "subscription.expiring_cards" {
            event.subscriptionID = data["subscription", "subscription_code"]?.string
        }
    }

    static func normalize(name: String, kind fixedKind: BillingEventKind?, data: JSONValue) throws(WebhookPayloadError) -> BillingEvent {
        let data = try object(data)
        let plan = plan(data)
        let planCode = plan?["plan_code"]?.string
        var event = BillingEvent(kind: fixedKind ?? kind(name: name, plan: plan), provider: .paystack, providerEventName: name, entityKey: "")
        readIDs(name: name, data: data, into: &event)

        event.customData = CustomData.flatten(data["metadata"])
        event.appUserID = CustomData.appUserID(in: event.customData)
        event.checkoutID = event.customData[CustomDataKeys.checkoutID]
        if let domain = data["domain"]?.string { event.testMode = domain == "test" }
        event.customerEmail = data["customer", "email"]?.string
        event.status = data["status"]?.string
        event.amount = data["amount"]?.int64
        event.currency = data["currency"]?.string ?? plan?["currency"]?.string
        event.productID = planCode
        event.variantID = planCode
        event.planName = plan?["name"]?.string
        event.recurringPrice = recurringPrice(plan)
        event.createdAt = (data["created_at"] ?? data["createdAt"])?.date
        event.updatedAt = (data["updated_at"] ?? data["updatedAt"])?.date
        event.paidAt = (data["paid_at"] ?? data["paidAt"])?.date
        event.nextPaymentDate = data["next_payment_date"]?.date
        event.renewsAt = event.nextPaymentDate
        event.emailToken = data["email_token"]?.string
        readCard(data["authorization"], into: &event)
        event.authorizationCode = data["authorization", "authorization_code"]?.string

        if name.hasPrefix("charge.dispute.") {
            let transaction = data["transaction"]
            event.amount = transaction?["amount"]?.int64
            event.refundedAmount = data["refund_amount"]?.int64
            event.disputeResolution = data["resolution"]?.string
            event.currency = data["currency"]?.string ?? transaction?["currency"]?.string
            // The disputed charge's plan names the subscription's plan (the
            // top-level `plan` is absent on disputes).
            if let code = transaction?["plan", "plan_code"]?.string {
                event.productID = code
                event.variantID = code
            }
            event.cardLastFour = data["last4"]?.string
            event.customData = CustomData.flatten(transaction?["metadata"])
            event.appUserID = CustomData.appUserID(in: event.customData)
            event.checkoutID = event.customData[CustomDataKeys.checkoutID]
        } else if name.hasPrefix("invoice.") {
            let subscription = data["subscription"]
            event.emailToken = subscription?["email_token"]?.string
            event.nextPaymentDate = subscription?["next_payment_date"]?.date
            event.renewsAt = event.nextPaymentDate
            event.currency = event.currency ?? data["transaction", "currency"]?.string
        } else if name.hasPrefix("refund.") {
            // `amount` is the refund's (a string of minor units), not the charge's.
            event.refundedAmount = event.amount
            event.amount = nil
        } else if name == "subscription.expiring_cards" {
            let subscription = data["subscription"]
            event.amount = subscription?["amount"]?.int64
            event.nextPaymentDate = subscription?["next_payment_date"]?.date
            event.renewsAt = event.nextPaymentDate
            event.cardBrand = data["brand"]?.string
        }
        event.orderingTimestamp = event.updatedAt ?? event.paidAt ?? event.createdAt
        event.entityKey = entityKey(for: event)
        return event
    }

    /// Paystack's `subscription.*` and `invoice.*` bodies carry the
    /// subscription's creation time, not the time of the change, so every
    /// state change of one subscription would tie. For those (when no
    /// `updated_at` is sent) the change is ordered by when Storefront received
    /// it, which is also what a provider fetch (``BillingEventKind/subscriptionObserved``)
    /// is ordered by. `refund.*` bodies carry no time at all: a refund is
    /// ordered by when it was received too. Charges keep `paid_at`, the
    /// provider's own time; disputes their `updated_at`.
    public static func settle(_ event: inout BillingEvent, receivedAt: Date) {
        let name = event.providerEventName
        guard event.updatedAt == nil, name.hasPrefix("subscription.") || name.hasPrefix("invoice.") || name.hasPrefix("refund.") else { return }
        event.orderingTimestamp = receivedAt
    }

    /// The plan's own `amount`, `currency` and `interval`, the price every
    /// renewal is charged at (a charge's or a subscription's top-level
    /// `amount` can differ: a first charge, a discounted one). Nil unless all
    /// three are there and the interval is one Paystack documents.
    static func recurringPrice(_ plan: JSONValue?) -> RecurringPrice? {
        guard let amount = plan?["amount"]?.int64, let currency = plan?["currency"]?.string,
            let interval = BillingInterval(paystackInterval: plan?["interval"]?.string)
        else { return nil }
        return RecurringPrice(amount: amount, currency: currency, interval: interval)
    }

    static func readCard(_ authorization: JSONValue?, into event: inout BillingEvent) {
        guard let authorization else { return }
        // `brand` is clean; `card_type` can carry trailing spaces and a suffix ("visa DEBIT").
        let brand = authorization["brand"]?.string ?? authorization["card_type"]?.string?.split(separator: " ").first.map(String.init)
        event.cardBrand = brand?.trimmingWhitespaceAndLowercased()
        event.cardLastFour = authorization["last4"]?.string
    }

    /// `paystack:<customer code>` whenever the customer code is known —
    /// renewal `charge.success` bodies carry no subscription code, so the
    /// customer is the only id shared by all events of one subscription —
    /// else `paystack:<subscription code>`, else `paystack:ref_<transaction reference>`
    /// (refunds only name the customer by email, which stays out of keys),
    /// else `paystack:unknown`.
    public static func entityKey(for event: BillingEvent) -> String {
        if let customer = event.customerID { return TopicKey.make(.paystack, customer) }
        if let subscription = event.subscriptionID { return TopicKey.make(.paystack, subscription) }
        if let reference = event.transactionReference { return TopicKey.make(.paystack, "ref_\(reference)") }
        return TopicKey.make(.paystack, "unknown")
    }

    /// Dedup key of a delivery. Paystack sends no event id. For
    /// `charge.success` the transaction id identifies the occurrence exactly,
    /// so the key is `paystack:charge.success:<data.id>`; other events can
    /// legitimately repeat with the same entity id (dispute reminders, invoice
    /// updates, a subscription cancelled twice), so they use
    /// `paystack:sha256:<hex of the raw body>`. `root` is nil when the body is not JSON.
    public static func dedupKey(root: JSONValue?, body: [UInt8]) -> String {
        if let root, root["event"]?.string == "charge.success", let id = root["data", "id"]?.string {
            return "paystack:charge.success:\(id)"
        }
        return "paystack:sha256:\(bodyDigest(body))"
    }
}

extension String {
    func trimmingWhitespaceAndLowercased() -> String {
        split(whereSeparator: { $0.isWhitespace }).joined(separator: " ").lowercased()
    }
}
