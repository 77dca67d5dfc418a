/// The emulated Stripe's keys, webhook endpoint and retry schedule.
public struct StripeSettings: Sendable {
    /// The secret key clients send as `Authorization: Bearer …`.
    public var secretKey: String
    /// The endpoint's signing secret (`whsec_…`) for `Stripe-Signature`.
    public var webhookSecret: String
    /// Where webhooks go; nil logs them as undeliverable.
    public var webhookURL: String?
    /// Delays between attempts after the first. Default: test mode.
    public var retrySchedule: [Double]

    /// Stripe documents test mode as "three times over a few hours" without
    /// the intervals; the sandbox uses 30 min, 1 h, 2 h.
    public static let testRetrySchedule: [Double] = [1_800, 3_600, 7_200]
    /// Live mode: "up to three days with an exponential back off"; the
    /// sandbox doubles from 5 minutes and then retries every 12 hours until
    /// 72 hours have passed (11 retries).
    public static let liveRetrySchedule: [Double] = [300, 600, 1_200, 2_400, 4_800, 9_600, 19_200, 43_200, 43_200, 43_200, 43_200]

    public init(
        secretKey: String = "sk_test_sandbox_stripe", webhookSecret: String = "whsec_sandbox_stripe", webhookURL: String? = nil,
        retrySchedule: [Double] = StripeSettings.testRetrySchedule
    ) {
        self.secretKey = secretKey
        self.webhookSecret = webhookSecret
        self.webhookURL = webhookURL
        self.retrySchedule = retrySchedule
    }
}
