import Foundation

/// A Checkout Session from `POST /v1/checkout/sessions`.
struct STSession: Sendable {
    let id: String
    /// `payment` or `subscription`.
    let mode: String
    let priceID: String
    let quantity: Int
    let successURL: String
    let cancelURL: String?
    let clientReferenceID: String?
    let customerEmail: String?
    let metadata: [JSONField]
    /// `subscription_data[metadata]` and `payment_intent_data[metadata]`, copied onto what the payment creates.
    let subscriptionMetadata: [JSONField]
    let paymentMetadata: [JSONField]
    let trialDays: Int?
    let createdAt: Date
    let expiresAt: Date
    /// `open`, then `complete`.
    var status: String = "open"
    var customerID: String?
    /// The email the buyer paid with (`customer_details.email`).
    var payerEmail: String?
    var subscriptionID: String?
    var paymentIntentID: String?
    var invoiceID: String?
    /// `discounts[0][promotion_code]`, checked at creation.
    var promotionCodeID: String?
    /// Cents the promotion code takes off the first payment (`total_details.amount_discount`).
    var amountDiscount = 0
    /// `automatic_tax[enabled]` (the sandbox computes no tax: `amount_tax` stays 0).
    var automaticTax = false
    /// `allow_promotion_codes`.
    var allowPromotionCodes = false
    /// `locale`, one of Checkout's values (nil: `auto`).
    var locale: String?
}

struct STCustomer: Sendable {
    let id: String
    let email: String
    let createdAt: Date
}

struct STSubscription: Sendable {
    let id: String
    let itemID: String
    let customerID: String
    var priceID: String
    let metadata: [JSONField]
    /// Stripe's statuses: `trialing|active|past_due|unpaid|canceled|incomplete|incomplete_expired|paused`.
    var status: String
    var cancelAtPeriodEnd = false
    var canceledAt: Date?
    var endedAt: Date?
    var trialStart: Date?
    var trialEnd: Date?
    var periodStart: Date
    var periodEnd: Date
    var latestInvoiceID: String?
    let createdAt: Date
    /// The subscription schedule attached (`sub_sched_…`), until it is released.
    var scheduleID: String?
}

struct STInvoice: Sendable {
    let id: String
    let number: String
    let subscriptionID: String
    let customerID: String
    /// `subscription_create`, `subscription_cycle`.
    let billingReason: String
    let amountDue: Int
    let currency: String
    let periodStart: Date
    let periodEnd: Date
    /// `open`, `paid`, `uncollectible`.
    var status: String
    var attemptCount: Int
    var nextPaymentAttempt: Date?
    var paidAt: Date?
    var paymentIntentID: String?
    let createdAt: Date
    /// A price change's lines (``PriceChangeQuote/Line``: the unused time's
    /// credit first, as Stripe lists it); empty for one line of the
    /// subscription's price over the invoice's period.
    var lines: [PriceChangeQuote.Line] = []
}

/// A PaymentIntent and its one successful charge (the sandbox's card never declines at checkout).
struct STPayment: Sendable {
    let paymentIntentID: String
    let chargeID: String
    let customerID: String?
    let amount: Int
    let currency: String
    let metadata: [JSONField]
    let invoiceID: String?
    let createdAt: Date
    /// `succeeded`, or `requires_payment_method` for a failed renewal attempt.
    var status: String
    var refunds: [STRefund] = []
    var disputeID: String?
    var amountRefunded: Int { refunds.reduce(0) { $0 + $1.amount } }
}

struct STRefund: Sendable {
    let id: String
    let amount: Int
    let createdAt: Date
}

struct STDispute: Sendable {
    let id: String
    let paymentIntentID: String
    let amount: Int
    let reason: String
    /// `needs_response`, then `won` or `lost`.
    var status: String
    let createdAt: Date
}

/// A stored answer to an idempotent POST: the same key with the same
/// parameters replays it; with other parameters it is refused.
struct STIdempotentAnswer: Sendable {
    let fingerprint: String
    let response: SandboxResponse
}

/// Everything the emulated Stripe holds.
struct StripeState: Sendable {
    enum Counter: String, Sendable {
        case session, customer, subscription, invoice, payment, refund, dispute, event, portal, request, schedule
    }

    private var counters: [Counter: Int] = [:]
    var sessions: [String: STSession] = [:]
    var customers: [String: STCustomer] = [:]
    var subscriptions: [String: STSubscription] = [:]
    var invoices: [String: STInvoice] = [:]
    /// By PaymentIntent id.
    var payments: [String: STPayment] = [:]
    var disputes: [String: STDispute] = [:]
    var schedules: [String: STSchedule] = [:]
    /// By `Idempotency-Key` (per key and route, as Stripe scopes them to the account).
    var idempotency: [String: STIdempotentAnswer] = [:]

    /// The next number of a kind: 1, 2, 3…
    mutating func next(_ counter: Counter) -> Int {
        let value = (counters[counter] ?? 0) + 1
        counters[counter] = value
        return value
    }

    /// An id in Stripe's style: a prefix, the kind's counter (so ids of a kind
    /// sort in creation order) and a random tail, so that a restarted sandbox
    /// never repeats an event id a receiver already deduplicated (`evt_1Sbx00000007k3x9qa`).
    mutating func id(_ prefix: String, _ counter: Counter) -> String {
        let digits = String(next(counter))
        return prefix + "1Sbx" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits + Formatting.randomCode("", length: 6)
    }

    func payment(charge chargeID: String) -> STPayment? { payments.values.first { $0.chargeID == chargeID } }
}
