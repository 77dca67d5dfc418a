import HTTPClient
import BillingModel
import ProviderBudget
import ProviderConfiguration
import Providers
import ServiceRuntime
import Telemetry
import ServiceSettings

/// The providers the reconciler reads (the same settings as every service's:
/// see `ProviderSetup`) and the request budgets it keeps to for each.
///
/// With a database (`DATABASE_URL`) every request is counted in the shared
/// provider ledger (``ProviderBudget/SharedProviderBudget``) that the checkout
/// counts in too: targeted fetches may use the limit minus the checkout's
/// reserve, sweeps only the sweep share (`PROVIDER_BUDGET_*`). Without one, or
/// while it is unreachable, this replica paces itself with an in-process
/// bucket of `RECONCILER_<PROVIDER>_REQUESTS_PER_MINUTE` (default: the limit minus the
/// checkout's reserve; with several replicas and no database, divide it among them).
public struct ReconcilerProviderSettings: Sendable {
    public var providers: ProvidersConfiguration
    /// The in-process fallback budget per provider, in requests per minute
    /// (``requestsPerMinute(_:)`` answers for every provider).
    public var localRequestsPerMinute: [Provider: Int]
    /// The provider limits and their split between checkout, fetches and sweeps (the ledger's ceilings).
    public var budgets: ProviderBudgetSettings
    /// List page size (both providers allow 100).
    public var pageSize: Int

    /// - Parameters:
    ///   - budgets: the shared limits; nil for the providers' documented ones (for the keys' mode).
    ///   - localRequestsPerMinute: the in-process fallback budgets of the providers
    ///     it names; the others get their limit minus the checkout's reserve.
    public init(
        providers: ProvidersConfiguration, budgets: ProviderBudgetSettings? = nil, localRequestsPerMinute: [Provider: Int] = [:],
        pageSize: Int = 100
    ) {
        self.providers = providers
        let budgets = budgets ?? ProviderBudgetSettings(live: providers.showsLiveKeys)
        self.budgets = budgets
        self.localRequestsPerMinute = Dictionary(
            uniqueKeysWithValues: Provider.allCases.map { ($0, localRequestsPerMinute[$0] ?? budgets.shares($0).perMinuteCeiling(for: .targeted)) })
        self.pageSize = pageSize
    }

    /// Reads the providers' settings and the budgets; nil when the providers'
    /// settings have problems (already reported to `reader`).
    public static func fromEnvironment(_ reader: inout ConfigReader) -> ReconcilerProviderSettings? {
        let providers = ProvidersConfiguration.fromEnvironment(&reader, uses: .api)
        var local: [Provider: Int] = [:]
        for provider in Provider.allCases {
            local[provider] = reader.int(.reconcilerRequestsPerMinute(provider), in: 1...100_000)
        }
        let budgets = ProviderBudgetSettings.fromEnvironment(&reader, live: providers?.showsLiveKeys ?? false)
        guard let providers else { return nil }
        return ReconcilerProviderSettings(providers: providers, budgets: budgets, localRequestsPerMinute: local)
    }

    /// The problem to stop on when ``fromEnvironment(_:)`` gave nil without
    /// the reader stopping the process first: it names the first registered
    /// provider's API setting, as the reader's own problem would.
    public static var incomplete: ConfigurationProblem {
        let setting = ProvidersConfiguration.enablingSettings(for: .api).first
        return ConfigurationProblem(variable: setting?.name ?? "provider settings", message: "provider configuration incomplete")
    }

    /// The in-process budget of `provider`, in requests per minute.
    public func requestsPerMinute(_ provider: Provider) -> Int {
        localRequestsPerMinute[provider] ?? budgets.shares(provider).perMinuteCeiling(for: .targeted)
    }

    /// The in-process fallback budget of each provider, shared by this
    /// replica's fetches and sweeps so together they keep to its share.
    public func fallbackBudgets() -> [Provider: RequestBudget] {
        Dictionary(uniqueKeysWithValues: Provider.allCases.map { ($0, RequestBudget(requestsPerMinute: requestsPerMinute($0))) })
    }

    /// Clients for the enabled providers, paced as `requestClass` (targeted
    /// fetches or sweeps) in `ledger` when there is one, else by `fallback`
    /// alone; counted in `metrics`, retrying with ``Providers/ProviderRetry/backgroundPolicy``.
    public func makeSource(
        httpClient: HTTPClient, metrics: ReconcilerMetrics, requestClass: ProviderRequestClass = .targeted,
        ledger: (any ProviderLedgerStore)? = nil, fallback: [Provider: RequestBudget]? = nil, logger: Logger? = nil
    ) -> ProviderClients {
        let fallback = fallback ?? fallbackBudgets()
        func budget(_ provider: Provider) -> MeteredBudget {
            let local = fallback[provider] ?? RequestBudget(requestsPerMinute: requestsPerMinute(provider))
            let paced: any ProviderRequestBudget =
                if let ledger {
                    SharedProviderBudget(
                        provider: provider, requestClass: requestClass, shares: budgets.shares(provider), store: ledger, fallback: local,
                        logger: logger ?? Logger(service: "reconciler"), batch: budgets.batch)
                } else {
                    local
                }
            return MeteredBudget(budget: paced, requests: metrics.requests(provider), rateLimited: metrics.rateLimited(provider))
        }
        return ProviderClients(
            providers.configurations.compactMap { configured in
                let options = ProviderClientOptions(
                    httpClient: httpClient, pageSize: pageSize, retryPolicy: ProviderRetry.backgroundPolicy, budget: budget(configured.provider))
                return configured.provider.apiRules.makeClient(configured, options: options)
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
