import CryptoPrimitives
import Foundation
import BillingModel
import Webhooks

/// One signed Lemon Squeezy delivery, ready to send.
struct Delivery: Sendable {
    /// `X-Signature`: lowercase hex HMAC-SHA256 of `body` with the receiver's secret.
    let signature: String
    /// `X-Event-Name` (and `meta.event_name`).
    let eventName: String
    /// `meta.webhook_id`; the receiver's dedup key is `lemonsqueezy:<webhookID>`.
    let webhookID: String
    let body: [UInt8]
}

/// Builds Lemon Squeezy webhook bodies in the provider's shape
/// (`{"meta":{event_name, webhook_id, custom_data, test_mode}, "data":{type, id, attributes, relationships, links}}`),
/// with the fields the normaliser reads and the neighbours a real delivery
/// carries (signed URLs, relationship links), so a body is about as large and
/// as nested as the provider's.
///
/// Each subscription's custom data is what Storefront's checkout sends (user,
/// checkout, and the ownership proof under the stack's `OWNERSHIP_PROOF_KEY`),
/// so the projector does the work of a proven owner, as in production.
///
/// Plans are deterministic for a run id: `subscriptions` subscriptions, each
/// with `deliveries / subscriptions` events (created, then payments and
/// updates, the last one cancelling, expiring or updating), ordered round by
/// round so one subscription's events are far apart in the sequence.
enum WebhookBodies {
    /// The plan's deliveries, signed with `secret`, each body padded with
    /// insignificant whitespace to at least `bodyBytes` (0: natural size).
    static func plan(
        runID: String, deliveries: Int, subscriptions: Int, bodyBytes: Int, secret: String, ownership: OwnershipProof
    ) -> [Delivery] {
        let shape = PlanShape(runID: runID, deliveries: deliveries, subscriptions: subscriptions, bodyBytes: bodyBytes, ownership: ownership)
        let key = Array(secret.utf8)
        return (0..<deliveries).map { position in
            let (eventName, webhookID, body) = shape.body(at: position)
            return Delivery(signature: Hex.encode(HMAC.sha256(key: key, message: body)), eventName: eventName, webhookID: webhookID, body: body)
        }
    }

    /// A plan's sizes; ``body(at:)`` is a pure function of the position, so
    /// large plans (the projector's backlog) are built in parallel, in pieces.
    struct PlanShape: Sendable {
        let runID: String
        let subscriptions: Int
        let perSubscription: Int
        let bodyBytes: Int
        /// Signs each subscription's user and checkout ids.
        let ownership: OwnershipProof
        let start: Date

        init(
            runID: String, deliveries: Int, subscriptions: Int, bodyBytes: Int, ownership: OwnershipProof,
            start: Date = Date().addingTimeInterval(-86_400)
        ) {
            self.runID = runID
            self.ownership = ownership
            self.subscriptions = max(1, min(subscriptions, deliveries))
            perSubscription = (deliveries + self.subscriptions - 1) / self.subscriptions
            self.bodyBytes = bodyBytes
            self.start = start
        }

        /// Delivery `position` (0-based): round by round, every subscription's
        /// first event, then every second one, ...
        func body(at position: Int) -> (eventName: String, webhookID: String, body: [UInt8]) {
            let sequence = position / subscriptions, index = position % subscriptions
            let webhookID = "\(runID)-0000-4000-8000-\(String(position + 1, radix: 16).leftPadded(to: 12))"
            let step = WebhookBodies.step(sequence: sequence, of: perSubscription, subscription: index)
            let body = WebhookBodies.make(
                eventName: step.eventName, webhookID: webhookID, runID: runID, index: index,
                sequence: sequence, status: step.status, start: start, bodyBytes: bodyBytes, ownership: ownership)
            return (step.eventName, webhookID, body)
        }
    }

    /// The event at `sequence` of a subscription's `count` events.
    static func step(sequence: Int, of count: Int, subscription: Int) -> (eventName: String, status: String) {
        if sequence == 0 { return ("subscription_created", "active") }
        if sequence == count - 1 {
            switch subscription % 4 {
            case 0: return ("subscription_cancelled", "cancelled")
            case 1: return ("subscription_expired", "expired")
            case 2: return ("subscription_updated", "past_due")
            default: return ("subscription_updated", "active")
            }
        }
        if sequence % 2 == 1 { return ("subscription_payment_success", "paid") }
        return ("subscription_updated", "active")
    }

    /// Numeric subscription id, unique per run and index (like Lemon Squeezy's).
    static func subscriptionID(runID: String, index: Int) -> Int {
        let run = (Int(runID.prefix(4), radix: 16) ?? 0) % 10_000
        return 900_000_000_000 + run * 10_000_000 + index
    }

    static func make(
        eventName: String, webhookID: String, runID: String, index: Int, sequence: Int, status: String,
        start: Date, bodyBytes: Int, ownership: OwnershipProof
    ) -> [UInt8] {
        let subscriptionID = subscriptionID(runID: runID, index: index)
        let customerID = 70_000_000 + index
        let createdAt = start.addingTimeInterval(Double(index % 86_400))
        // Strictly increasing per subscription: the projector orders by it.
        let updatedAt = createdAt.addingTimeInterval(Double(sequence) * 600)
        let email = "bench-\(runID)-\(index)@example.com"
        let user = "bench-\(runID)-user-\(index)", checkout = "bench-\(runID)-checkout-\(index)"
        let api = "https://api.lemonsqueezy.com/v1"
        let expires = Int(updatedAt.timeIntervalSince1970) + 86_400
        let signature = webhookID.replacingOccurrences(of: "-", with: "")
        let meta: JSON = .object([
            ("test_mode", true),
            ("event_name", .string(eventName)),
            ("webhook_id", .string(webhookID)),
            (
                "custom_data",
                .object([
                    (CustomDataKeys.appUserID, .string(user)), (CustomDataKeys.checkoutID, .string(checkout)),
                    (CustomDataKeys.proof, .string(ownership.proof(checkoutID: checkout, appUserID: user))),
                ])
            ),
        ])
        func relationships(_ type: String, _ id: String, _ names: [String]) -> JSON {
            .object(
                names.map { name in
                    (
                        name,
                        .object([
                            (
                                "links",
                                .object([
                                    ("related", .string("\(api)/\(type)/\(id)/\(name)")),
                                    ("self", .string("\(api)/\(type)/\(id)/relationships/\(name)")),
                                ])
                            )
                        ])
                    )
                })
        }
        let data: JSON
        if eventName == "subscription_payment_success" {
            let invoiceID = String(customerID * 100 + sequence)
            data = .object([
                ("type", "subscription-invoices"),
                ("id", .string(invoiceID)),
                (
                    "attributes",
                    .object([
                        ("store_id", 1), ("subscription_id", .int(subscriptionID)), ("customer_id", .int(customerID)),
                        ("user_name", .string("Bench Customer \(index)")), ("user_email", .string(email)), ("billing_reason", "renewal"),
                        ("card_brand", "visa"), ("card_last_four", "4242"), ("currency", "USD"), ("currency_rate", "1.00000000"),
                        ("status", "paid"), ("status_formatted", "Paid"), ("refunded", false), ("refunded_at", .null),
                        ("subtotal", 1200), ("discount_total", 0), ("tax", 0), ("tax_inclusive", false), ("total", 1200),
                        ("refunded_amount", 0), ("subtotal_usd", 1200), ("discount_total_usd", 0), ("tax_usd", 0), ("total_usd", 1200),
                        ("refunded_amount_usd", 0), ("subtotal_formatted", "$12.00"), ("discount_total_formatted", "$0.00"),
                        ("tax_formatted", "$0.00"), ("total_formatted", "$12.00"), ("refunded_amount_formatted", "$0.00"),
                        (
                            "urls",
                            .object([
                                (
                                    "invoice_url",
                                    .string(
                                        "https://app.lemonsqueezy.com/my-orders/\(webhookID)/subscription-invoice/\(invoiceID)?expires=\(expires)&signature=\(signature)"
                                    )
                                )
                            ])
                        ),
                        ("created_at", .string(Timestamp.format(updatedAt))), ("updated_at", .string(Timestamp.format(updatedAt))),
                        ("test_mode", true),
                    ])
                ),
                ("relationships", relationships("subscription-invoices", invoiceID, ["store", "subscription", "customer"])),
                ("links", .object([("self", .string("\(api)/subscription-invoices/\(invoiceID)"))])),
            ])
        } else {
            let ended = status == "cancelled" || status == "expired"
            let id = String(subscriptionID)
            data = .object([
                ("type", "subscriptions"),
                ("id", .string(id)),
                (
                    "attributes",
                    .object([
                        ("store_id", 1), ("customer_id", .int(customerID)), ("order_id", .int(customerID + 1)),
                        ("order_item_id", .int(customerID + 2)),
                        ("product_id", 1001), ("variant_id", 2001), ("product_name", "Storefront Pro"), ("variant_name", "Monthly"),
                        ("user_name", .string("Bench Customer \(index)")), ("user_email", .string(email)),
                        ("status", .string(status)), ("status_formatted", .string(status.replacingOccurrences(of: "_", with: " ").capitalized)),
                        ("card_brand", "visa"), ("card_last_four", "4242"), ("pause", .null), ("cancelled", .bool(status == "cancelled")),
                        ("trial_ends_at", .null), ("billing_anchor", .int(1 + index % 28)),
                        (
                            "first_subscription_item",
                            .object([
                                ("id", .int(customerID + 3)), ("subscription_id", .int(subscriptionID)), ("price_id", 556_677), ("quantity", 1),
                                ("is_usage_based", false), ("created_at", .string(Timestamp.format(createdAt))),
                                ("updated_at", .string(Timestamp.format(updatedAt))),
                            ])
                        ),
                        (
                            "urls",
                            .object([
                                (
                                    "update_payment_method",
                                    .string(
                                        "https://storefront-bench.lemonsqueezy.com/subscription/\(id)/payment-details?expires=\(expires)&signature=\(signature)"
                                    )
                                ),
                                (
                                    "customer_portal",
                                    .string(
                                        "https://storefront-bench.lemonsqueezy.com/billing?expires=\(expires)&user=\(customerID)&signature=\(signature)"
                                    )
                                ),
                                (
                                    "customer_portal_update_subscription",
                                    .string(
                                        "https://storefront-bench.lemonsqueezy.com/billing/\(id)/update?expires=\(expires)&user=\(customerID)&signature=\(signature)"
                                    )
                                ),
                            ])
                        ),
                        ("renews_at", .string(Timestamp.format(updatedAt.addingTimeInterval(30 * 86_400)))),
                        ("ends_at", ended ? .string(Timestamp.format(updatedAt.addingTimeInterval(86_400))) : .null),
                        ("created_at", .string(Timestamp.format(createdAt))), ("updated_at", .string(Timestamp.format(updatedAt))),
                        ("test_mode", true),
                    ])
                ),
                (
                    "relationships",
                    relationships(
                        "subscriptions", id,
                        [
                            "store", "customer", "order", "order-item", "product", "variant",
                            "subscription-items", "subscription-invoices",
                        ])
                ),
                ("links", .object([("self", .string("\(api)/subscriptions/\(id)"))])),
            ])
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(max(bodyBytes, 4096))
        JSON.object([("meta", meta), ("data", data)]).write(to: &bytes)
        if bytes.count < bodyBytes {
            // Insignificant whitespace before the closing brace: still the same JSON value.
            bytes.insert(contentsOf: repeatElement(UInt8(ascii: " "), count: bodyBytes - bytes.count), at: bytes.count - 1)
        }
        return bytes
    }
}

/// Just enough JSON to write webhook bodies the way Lemon Squeezy's PHP
/// does (keys in the given order, `/` escaped as `\/`), fast enough to build
/// a backlog of hundreds of thousands (`JSONSerialization` is not).
indirect enum JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    case object([(String, JSON)])
    case string(String)
    case int(Int)
    case bool(Bool)
    case null

    init(stringLiteral value: String) { self = .string(value) }
    init(integerLiteral value: Int) { self = .int(value) }
    init(booleanLiteral value: Bool) { self = .bool(value) }

    func write(to out: inout [UInt8]) {
        switch self {
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (offset, member) in members.enumerated() {
                if offset > 0 { out.append(UInt8(ascii: ",")) }
                JSON.quote(member.0, to: &out)
                out.append(UInt8(ascii: ":"))
                member.1.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .string(let text): JSON.quote(text, to: &out)
        case .int(let value): out.append(contentsOf: String(value).utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .null: out.append(contentsOf: "null".utf8)
        }
    }

    static func quote(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"):
                out.append(UInt8(ascii: "\\")); out.append(byte)
            case 0..<0x20:
                out.append(contentsOf: "\\u00".utf8)
                out.append(contentsOf: String(byte, radix: 16).leftPadded(to: 2).utf8)
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

/// The deliveries file: one delivery per line, `signature TAB event TAB webhook id TAB body`
/// (bodies are single-line JSON). Read by the wrk Lua script and by `load`.
enum DeliveryFile {
    static func write(_ deliveries: [Delivery], to path: String) throws {
        var out: [UInt8] = []
        out.reserveCapacity(deliveries.reduce(0) { $0 + $1.body.count + 160 })
        for delivery in deliveries {
            out.append(contentsOf: delivery.signature.utf8); out.append(9)
            out.append(contentsOf: delivery.eventName.utf8); out.append(9)
            out.append(contentsOf: delivery.webhookID.utf8); out.append(9)
            out.append(contentsOf: delivery.body); out.append(10)
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(out)) else {
            throw Options.Invalid(description: "cannot write \(path)")
        }
    }

    static func read(_ path: String) throws -> [Delivery] {
        guard let data = FileManager.default.contents(atPath: path) else { throw Options.Invalid(description: "cannot read \(path)") }
        var result: [Delivery] = []
        for line in data.split(separator: 10, omittingEmptySubsequences: true) {
            let fields = line.split(separator: 9, maxSplits: 3, omittingEmptySubsequences: false)
            guard fields.count == 4 else { throw Options.Invalid(description: "\(path): malformed line") }
            result.append(
                Delivery(
                    signature: String(decoding: fields[0], as: UTF8.self), eventName: String(decoding: fields[1], as: UTF8.self),
                    webhookID: String(decoding: fields[2], as: UTF8.self), body: [UInt8](fields[3])))
        }
        return result
    }
}
