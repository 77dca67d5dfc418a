import BillingModel

/// Test or live: Stripe tells them apart by the key itself (`sk_test_…`,
/// `sk_live_…`, and restricted keys `rk_test_…`, `rk_live_…`), and every
/// object and event says which it belongs to in `livemode`.
public enum StripeMode: String, Sendable, Hashable, CaseIterable {
    case test
    case live

    /// The mode of a secret or restricted API key; nil for anything else
    /// (a publishable `pk_` key cannot call the server API, a webhook `whsec_`
    /// secret carries no mode).
    public init?(secretKey: String) {
        if secretKey.hasPrefix("sk_test_") || secretKey.hasPrefix("rk_test_") {
            self = .test
        } else if secretKey.hasPrefix("sk_live_") || secretKey.hasPrefix("rk_live_") {
            self = .live
        } else {
            return nil
        }
    }

    /// The mode an object's or event's `livemode` names.
    public init(livemode: Bool) { self = livemode ? .live : .test }

    /// Whether this is test mode (the projection's `testMode`).
    public var isTest: Bool { self == .test }
}
