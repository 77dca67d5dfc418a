/// What an app user may do how often: the per-user quotas of the routes that
/// reach the payment provider, kept so one account cannot spend the
/// provider's per-store limit for every other buyer.
public struct UserQuotaPolicy: Sendable, Equatable {
    /// A counted route. Cancel and resume share one counter: flipping a
    /// subscription back and forth is the abuse to stop.
    public enum Action: String, Sendable, CaseIterable {
        case createCheckout = "create_checkout"
        case portal
        case subscriptionChange = "subscription_change"
        /// A server route, counted per API key (the quota row's user is `api_key:<key id>`).
        case serverRead = "server_read"
        /// A server route that acts (a grant, a revocation), counted per API
        /// key apart from its reads, with a fixed limit: support acts by hand.
        case serverWrite = "server_write"
        /// `POST /api/users/{app_user_id}/refunds`, per API key, beside its
        /// `serverRead` count, fixed: a support desk refunds by hand, and each
        /// refund spends the provider's budget and moves money.
        case refund
        /// Web-first routes (docs/web-first.md), fixed limits: anonymous
        /// checkouts and anonymous users per client address, redemption
        /// attempts per user and per address (against guessing), link resends
        /// and restores.
        case anonymousUser = "anonymous_user"
        case redeem
        case redeemResend = "redeem_resend"
        case restore
        case alias
    }

    /// At most `requests` in each fixed window of `window` (whole seconds).
    public struct Limit: Sendable, Equatable {
        public var requests: Int
        public var window: Duration

        public init(requests: Int, window: Duration) {
            self.requests = requests
            self.window = window
        }
    }

    /// `CHECKOUT_QUOTA_CREATE_PER_MINUTE` (10) and `CHECKOUT_QUOTA_CREATE_PER_HOUR` (60).
    public var createPerMinute: Int
    public var createPerHour: Int
    /// `CHECKOUT_QUOTA_PORTAL_PER_MINUTE` (20).
    public var portalPerMinute: Int
    /// `CHECKOUT_QUOTA_CANCEL_RESUME_PER_MINUTE` (10, cancel and resume together).
    public var cancelResumePerMinute: Int
    /// `CHECKOUT_QUOTA_API_KEY_PER_MINUTE` (1200): server-route requests per API key.
    public var apiKeyPerMinute: Int

    public init(
        createPerMinute: Int = 10, createPerHour: Int = 60, portalPerMinute: Int = 20, cancelResumePerMinute: Int = 10, apiKeyPerMinute: Int = 1200
    ) {
        self.createPerMinute = createPerMinute
        self.createPerHour = createPerHour
        self.portalPerMinute = portalPerMinute
        self.cancelResumePerMinute = cancelResumePerMinute
        self.apiKeyPerMinute = apiKeyPerMinute
    }

    /// The limits of `action`, longest window first (a refusal by the longest
    /// names the longest wait); a limit of 0 is off.
    public func limits(for action: Action) -> [Limit] {
        let limits: [Limit] =
            switch action {
            case .createCheckout: [Limit(requests: createPerHour, window: .seconds(3600)), Limit(requests: createPerMinute, window: .seconds(60))]
            case .portal: [Limit(requests: portalPerMinute, window: .seconds(60))]
            case .subscriptionChange: [Limit(requests: cancelResumePerMinute, window: .seconds(60))]
            case .serverRead: [Limit(requests: apiKeyPerMinute, window: .seconds(60))]
            case .serverWrite: [Limit(requests: 300, window: .seconds(60))]
            case .refund: [Limit(requests: 300, window: .seconds(3600)), Limit(requests: 30, window: .seconds(60))]
            // A person taps a link a few times; a guesser needs billions.
            case .redeem: [Limit(requests: 60, window: .seconds(3600)), Limit(requests: 10, window: .seconds(60))]
            case .anonymousUser: [Limit(requests: 100, window: .seconds(3600)), Limit(requests: 20, window: .seconds(60))]
            case .redeemResend: [Limit(requests: 20, window: .seconds(3600)), Limit(requests: 5, window: .seconds(60))]
            case .restore, .alias: [Limit(requests: 10, window: .seconds(60))]
            }
        return limits.filter { $0.requests > 0 }
    }
}
