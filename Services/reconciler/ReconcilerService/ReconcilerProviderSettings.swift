import HTTPClient
import Models
import ProviderConfiguration
import Providers
import ServiceRuntime
import Telemetry
import Basics

/// The providers the reconciler reads (the same settings as every service's:
/// see `ProviderSetup`) and the request budget it keeps to for each.
///
/// The budgets are the providers' documented limits by default, Lemon Squeezy
/// 300 requests a minute, Paystack 100 (test keys) or 600 (live keys); the
/// other services use the same key, so a busy deployment sets them lower:
/// `RECONCILER_LEMONSQUEEZY_REQUESTS_PER_MINUTE`, `RECONCILER_PAYSTACK_REQUESTS_PER_MINUTE`.
public struct ReconcilerProviderSettings: Sendable {
    public var providers: ProvidersConfiguration
    public var lemonSqueezyRequestsPerMinute: Int
    public var paystackRequestsPerMinute: Int
    /// List page size (both providers allow 100).
    public var pageSize: Int

    public static let lemonSqueezyLimit = 300
    public static let paystackTestLimit = 100
    public static let paystackLiveLimit = 600

    public init(
        providers: ProvidersConfiguration, lemonSqueezyRequestsPerMinute: Int = lemonSqueezyLimit,
        paystackRequestsPerMinute: Int? = nil, pageSize: Int = 100
    ) {
        self.providers = providers
        self.lemonSqueezyRequestsPerMinute = lemonSqueezyRequestsPerMinute
        let live = providers.paystack?.secretKey.reveal().hasPrefix("sk_live_") == true
        self.paystackRequestsPerMinute = paystackRequestsPerMinute ?? (live ? Self.paystackLiveLimit : Self.paystackTestLimit)
        self.pageSize = pageSize
    }

    /// Reads the providers' settings and the budgets; nil when the providers'
    /// settings have problems (already reported to `reader`).
    public static func fromEnvironment(_ reader: inout ConfigReader) -> ReconcilerProviderSettings? {
        let providers = ProvidersConfiguration.fromEnvironment(&reader, uses: .api)
        let lemonSqueezy = reader.int("RECONCILER_LEMONSQUEEZY_REQUESTS_PER_MINUTE", default: lemonSqueezyLimit, in: 1...100_000)
        let paystack = reader.int("RECONCILER_PAYSTACK_REQUESTS_PER_MINUTE", in: 1...100_000)
        guard let providers else { return nil }
        return ReconcilerProviderSettings(providers: providers, lemonSqueezyRequestsPerMinute: lemonSqueezy, paystackRequestsPerMinute: paystack)
    }

    /// The budget of `provider`, in requests per minute.
    public func requestsPerMinute(_ provider: Provider) -> Int {
        provider == .lemonsqueezy ? lemonSqueezyRequestsPerMinute : paystackRequestsPerMinute
    }

    /// Clients for the enabled providers, each paced by its own budget and
    /// counted in `metrics`, retrying with ``Providers/ProviderRetry/backgroundPolicy``.
    public func makeSource(httpClient: HTTPClient, metrics: ReconcilerMetrics) -> ProviderClients {
        func budget(_ provider: Provider) -> MeteredBudget {
            MeteredBudget(
                budget: RequestBudget(requestsPerMinute: requestsPerMinute(provider)),
                requests: metrics.requests(provider), rateLimited: metrics.rateLimited(provider))
        }
        return ProviderClients(
            lemonSqueezy: providers.lemonSqueezy.map {
                LemonSqueezyClient(
                    configuration: $0, httpClient: httpClient, pageSize: pageSize, retryPolicy: ProviderRetry.backgroundPolicy,
                    budget: budget(.lemonsqueezy))
            },
            paystack: providers.paystack.map {
                PaystackClient(
                    configuration: $0, httpClient: httpClient, pageSize: pageSize, retryPolicy: ProviderRetry.backgroundPolicy,
                    budget: budget(.paystack))
            })
    }
}

/// A budget that also counts what passes through it.
struct MeteredBudget: ProviderRequestBudget {
    let budget: any ProviderRequestBudget
    let requests: Counter
    let rateLimited: Counter

    func acquire() async throws {
        try await budget.acquire()
        requests.increment()
    }

    func backOff(for delay: Duration) {
        rateLimited.increment()
        budget.backOff(for: delay)
    }
}
