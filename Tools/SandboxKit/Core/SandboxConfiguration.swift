/// Everything the sandbox needs to know at start-up.
public struct SandboxConfiguration: Sendable {
    /// The URL browsers and clients use to reach the sandbox, without a trailing slash
    /// (checkout URLs, JSON:API links and manage links point here).
    public var publicBaseURL: String
    public var lemonSqueezy: LemonSqueezySettings
    public var paystack: PaystackSettings
    public var stripe: StripeSettings
    /// The emulated External Purchase Server API (App Store).
    public var apple: AppleSettings
    /// Optional per-provider request limit for the API routes (nil: unlimited).
    public var rateLimit: RateLimitSettings?
    /// Multiplies every retry delay, so tests can run a 125 s schedule in milliseconds.
    public var retryTimeScale: Double
    /// Statuses that acknowledge a delivery; the references only document 200,
    /// the brief asks for any 2xx.
    public var acknowledgedStatuses: ClosedRange<Int>
    /// Seed of the permutation used by the shuffle fault (deterministic runs).
    public var shuffleSeed: UInt64

    public init(
        publicBaseURL: String = "http://127.0.0.1:8090",
        lemonSqueezy: LemonSqueezySettings = LemonSqueezySettings(),
        paystack: PaystackSettings = PaystackSettings(),
        stripe: StripeSettings = StripeSettings(),
        apple: AppleSettings = AppleSettings(),
        rateLimit: RateLimitSettings? = nil,
        retryTimeScale: Double = 1,
        acknowledgedStatuses: ClosedRange<Int> = 200...299,
        shuffleSeed: UInt64 = 42
    ) {
        self.publicBaseURL = publicBaseURL.hasSuffix("/") ? String(publicBaseURL.dropLast()) : publicBaseURL
        self.lemonSqueezy = lemonSqueezy
        self.paystack = paystack
        self.stripe = stripe
        self.apple = apple
        self.rateLimit = rateLimit
        self.retryTimeScale = retryTimeScale
        self.acknowledgedStatuses = acknowledgedStatuses
        self.shuffleSeed = shuffleSeed
    }
}

public struct LemonSqueezySettings: Sendable {
    /// The bearer key clients must send.
    public var apiKey: String
    /// Secret for `X-Signature` (HMAC-SHA256 of the body).
    public var webhookSecret: String
    /// Where webhooks go; nil logs them as undeliverable.
    public var webhookURL: String?
    /// Delays between attempts after the first: 5 s, 25 s, 125 s (3 retries).
    public var retrySchedule: [Double]

    public init(
        apiKey: String = "ls_test_sandbox_key", webhookSecret: String = "ls_sandbox_webhook_secret", webhookURL: String? = nil,
        retrySchedule: [Double] = [5, 25, 125]
    ) {
        self.apiKey = apiKey
        self.webhookSecret = webhookSecret
        self.webhookURL = webhookURL
        self.retrySchedule = retrySchedule
    }
}

public struct PaystackSettings: Sendable {
    /// The secret key clients send as bearer; it also signs webhooks (HMAC-SHA512).
    public var secretKey: String
    public var webhookURL: String?
    /// Delays between attempts after the first. Default: test mode, hourly for 10 hours.
    public var retrySchedule: [Double]

    /// Paystack live mode: every 3 minutes for 4 tries, then hourly for 72 hours.
    public static let liveRetrySchedule: [Double] = Array(repeating: 180, count: 4) + Array(repeating: 3600, count: 72)
    /// Paystack test mode: hourly for 10 hours.
    public static let testRetrySchedule: [Double] = Array(repeating: 3600, count: 10)

    public init(secretKey: String = "sk_test_sandbox_secret", webhookURL: String? = nil, retrySchedule: [Double] = PaystackSettings.testRetrySchedule)
    {
        self.secretKey = secretKey
        self.webhookURL = webhookURL
        self.retrySchedule = retrySchedule
    }
}

public struct RateLimitSettings: Sendable, Equatable {
    public var limit: Int
    public var windowSeconds: Int
    public init(limit: Int, windowSeconds: Int) {
        self.limit = max(1, limit)
        self.windowSeconds = max(1, windowSeconds)
    }
}
