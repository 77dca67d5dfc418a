/// What a delivery is about, for the drop faults: `provider:id` strings of
/// the subscriptions and checkouts behind it, read from the payload and the
/// sandbox's records when the webhook is queued.
struct DeliverySubjects: Sendable, Equatable {
    var subscriptions: Set<String> = []
    var checkouts: Set<String> = []

    static func of(_ event: OutgoingWebhook, state: SandboxState) -> DeliverySubjects {
        switch event.provider {
        case .lemonSqueezy: lemonSqueezy(event.payload["data"] ?? .null, state: state)
        case .paystack: paystack(event.payload["data"] ?? .null, state: state)
        case .stripe: stripe(event.payload["data"]?["object"] ?? .null, state: state.stripe)
        }
    }

    /// Subscriptions, their invoices and their orders name the subscription;
    /// orders (and through them subscriptions) name the checkout that paid them.
    static func lemonSqueezy(_ data: JSONValue, state: SandboxState) -> DeliverySubjects {
        var subjects = DeliverySubjects()
        let id = data["id"]?.stringValue.flatMap { Int($0) }
        let attributes = data["attributes"] ?? .null
        var orderID: Int?
        switch data["type"]?.stringValue {
        case "subscriptions":
            if let id { subjects.subscriptions.insert("lemonsqueezy:\(id)") }
            orderID = attributes["order_id"]?.intValue
        case "subscription-invoices":
            if let subscription = attributes["subscription_id"]?.intValue {
                subjects.subscriptions.insert("lemonsqueezy:\(subscription)")
                orderID = state.lsSubscriptions[subscription]?.orderID
            }
        case "orders":
            orderID = id
            if let subscription = id.flatMap({ state.lsOrders[$0]?.subscriptionID }) { subjects.subscriptions.insert("lemonsqueezy:\(subscription)") }
        case "license-keys":
            orderID = attributes["order_id"]?.intValue
        default:
            break
        }
        if let orderID {
            for checkout in state.lsCheckouts.values where checkout.paidOrderID == orderID {
                subjects.checkouts.insert("lemonsqueezy:\(checkout.id)")
            }
        }
        return subjects
    }

    /// Subscription, invoice, charge and refund events name the subscription
    /// (a charge through its transaction) and the transaction that created it
    /// (its reference and access code name the checkout).
    static func paystack(_ data: JSONValue, state: SandboxState) -> DeliverySubjects {
        var subjects = DeliverySubjects()
        let data = data.arrayValue?.first ?? data
        var code = data["subscription_code"]?.stringValue ?? data["subscription"]?["subscription_code"]?.stringValue
        let reference = data["reference"]?.stringValue ?? data["transaction_reference"]?.stringValue ?? data["transaction"]?["reference"]?.stringValue
        if code == nil, let reference, let id = state.psTransactions[reference]?.subscriptionID { code = state.psSubscriptions[id]?.code }
        var transactions: [PSTransaction] = []
        if let reference, let t = state.psTransactions[reference] { transactions.append(t) }
        if let code, let s = state.psSubscriptions.values.first(where: { $0.code == code }) {
            subjects.subscriptions.insert("paystack:\(code)")
            transactions += state.psTransactions.values.filter { $0.subscriptionID == s.id }
        }
        for t in transactions {
            subjects.checkouts.insert("paystack:\(t.reference)")
            subjects.checkouts.insert("paystack:\(t.accessCode)")
        }
        return subjects
    }
}
