/// What happened, in provider-neutral terms. Unknown provider events are kept
/// as `.unknown(<provider event name>)`, never dropped or treated as errors.
///
/// Coded as a string: the case name (`subscriptionCreated`) or, for unknown
/// events, `unknown:<name>`.
public enum BillingEventKind: Sendable, Hashable, Codable, RawRepresentable, CustomStringConvertible {
    case orderCreated // LS order_created; Paystack one-time charge.success
    case orderRefunded // LS order_refunded (full or partial)
    case subscriptionCreated
    case subscriptionUpdated // LS catch-all change
    case subscriptionCancelled // LS: cancelled, still valid until ends_at
    case subscriptionResumed
    case subscriptionExpired
    case subscriptionPaused
    case subscriptionUnpaused
    case subscriptionNotRenewing // Paystack: cancelled at period end
    case subscriptionDisabled // Paystack: ended (cancelled or complete)
    case paymentSucceeded // LS subscription_payment_success; Paystack renewal charge.success
    case paymentFailed // LS subscription_payment_failed; Paystack invoice.payment_failed
    case paymentRecovered
    case paymentRefunded // LS subscription_payment_refunded
    case invoiceCreated
    case invoiceUpdated
    case refundPending
    case refundProcessing
    case refundProcessed
    case refundFailed
    case refundNeedsAttention
    case disputeCreated
    case disputeReminder
    case disputeResolved
    case expiringCards
    case licenseKeyCreated
    case licenseKeyUpdated
    /// Not a webhook: the provider's own object as Storefront fetched it
    /// (after a cancel or resume it asked for). Authoritative as of its
    /// ordering timestamp, the moment of the fetch.
    case subscriptionObserved
    case unknown(String)

    static let known: [BillingEventKind] = [
        .orderCreated, .orderRefunded, .subscriptionCreated, .subscriptionUpdated, .subscriptionCancelled,
        .subscriptionResumed, .subscriptionExpired, .subscriptionPaused, .subscriptionUnpaused, .subscriptionNotRenewing,
        .subscriptionDisabled, .paymentSucceeded, .paymentFailed, .paymentRecovered, .paymentRefunded, .invoiceCreated,
        .invoiceUpdated, .refundPending, .refundProcessing, .refundProcessed, .refundFailed, .refundNeedsAttention,
        .disputeCreated, .disputeReminder, .disputeResolved, .expiringCards, .licenseKeyCreated, .licenseKeyUpdated,
        .subscriptionObserved,
    ]

    public init(rawValue: String) {
        if rawValue.hasPrefix("unknown:") {
            self = .unknown(String(rawValue.dropFirst("unknown:".count)))
        } else if let kind = Self.known.first(where: { $0.rawValue == rawValue }) {
            self = kind
        } else {
            self = .unknown(rawValue)
        }
    }

    public var rawValue: String {
        // Spelled out rather than `String(describing:)` so the wire names do
        // not depend on reflection metadata.
        switch self {
        case .unknown(let name): "unknown:\(name)"
        case .orderCreated: "orderCreated"
        case .orderRefunded: "orderRefunded"
        case .subscriptionCreated: "subscriptionCreated"
        case .subscriptionUpdated: "subscriptionUpdated"
        case .subscriptionCancelled: "subscriptionCancelled"
        case .subscriptionResumed: "subscriptionResumed"
        case .subscriptionExpired: "subscriptionExpired"
        case .subscriptionPaused: "subscriptionPaused"
        case .subscriptionUnpaused: "subscriptionUnpaused"
        case .subscriptionNotRenewing: "subscriptionNotRenewing"
        case .subscriptionDisabled: "subscriptionDisabled"
        case .paymentSucceeded: "paymentSucceeded"
        case .paymentFailed: "paymentFailed"
        case .paymentRecovered: "paymentRecovered"
        case .paymentRefunded: "paymentRefunded"
        case .invoiceCreated: "invoiceCreated"
        case .invoiceUpdated: "invoiceUpdated"
        case .refundPending: "refundPending"
        case .refundProcessing: "refundProcessing"
        case .refundProcessed: "refundProcessed"
        case .refundFailed: "refundFailed"
        case .refundNeedsAttention: "refundNeedsAttention"
        case .disputeCreated: "disputeCreated"
        case .disputeReminder: "disputeReminder"
        case .disputeResolved: "disputeResolved"
        case .expiringCards: "expiringCards"
        case .licenseKeyCreated: "licenseKeyCreated"
        case .licenseKeyUpdated: "licenseKeyUpdated"
        case .subscriptionObserved: "subscriptionObserved"
        }
    }

    public var description: String { rawValue }

    /// True for `.unknown`.
    public var isUnknown: Bool {
        if case .unknown = self { return true }
        return false
    }

    public init(from decoder: any Decoder) throws { self.init(rawValue: try decoder.singleValueContainer().decode(String.self)) }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
