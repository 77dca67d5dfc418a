import ServiceSettings
import BillingModel

/// How one provider's API limit is split between the request classes.
///
/// The limit is per store (Lemon Squeezy) or per integration key (Paystack):
/// every service and replica using the key shares it. The checkout keeps
/// ``checkoutReservePercent`` of it for itself; the reconciler's sweep stops at
/// ``sweepPercent``. The ledger counts in short windows (``LedgerWindow``) whose
/// ceilings are derived here so that no 60 seconds, however they fall across
/// the windows, hold more than the limit.
public struct ProviderBudgetShares: Sendable, Equatable {
    /// The provider's limit for the key, in requests per minute.
    public var requestsPerMinute: Int
    /// Share of the limit only interactive (checkout) calls may use, in percent.
    public var checkoutReservePercent: Int
    /// Share of the limit the sweep class may reach, in percent (at most the targeted share).
    public var sweepPercent: Int

    public init(requestsPerMinute: Int, checkoutReservePercent: Int = 30, sweepPercent: Int = 40) {
        self.requestsPerMinute = max(1, requestsPerMinute)
        self.checkoutReservePercent = min(max(0, checkoutReservePercent), 100)
        self.sweepPercent = min(max(0, sweepPercent), 100 - self.checkoutReservePercent)
    }

    /// The per-minute ceiling of `requestClass`: the whole limit for interactive
    /// calls, the limit minus the reserve for targeted fetches, the sweep share for sweeps.
    public func perMinuteCeiling(for requestClass: ProviderRequestClass) -> Int {
        switch requestClass {
        case .interactive: requestsPerMinute
        case .targeted: requestsPerMinute * (100 - checkoutReservePercent) / 100
        case .sweep: requestsPerMinute * sweepPercent / 100
        }
    }

    /// The ceiling of `requestClass` in one ledger window: a
    /// ``LedgerWindow/windowsPerMinute`` + 1 share of its per-minute ceiling
    /// (any 60 seconds overlap at most that many windows), at least 1 so no
    /// class is starved outright.
    public func ceiling(for requestClass: ProviderRequestClass) -> Int {
        max(1, perMinuteCeiling(for: requestClass) / (LedgerWindow.windowsPerMinute + 1))
    }
}

/// The ledger's settings for every provider, read by the checkout and the
/// reconciler alike (they must agree, so the names carry no service prefix).
public struct ProviderBudgetSettings: Sendable, Equatable {
    /// `PROVIDER_BUDGET_<STEM>_PER_MINUTE`, per provider (default: its
    /// documented limit for the keys' mode; Lemon Squeezy 300, Paystack 100
    /// with a test key and 600 with a live one).
    public var perMinute: [Provider: Int]
    /// `PROVIDER_BUDGET_CHECKOUT_RESERVE_PERCENT` (default 30).
    public var checkoutReservePercent: Int
    /// `PROVIDER_BUDGET_SWEEP_PERCENT` (default 40; at most 100 minus the reserve).
    public var sweepPercent: Int
    /// `PROVIDER_BUDGET_BATCH` (default 5): requests the reconciler takes from the
    /// ledger at once (``SharedProviderBudget``'s `batch`); the checkout takes one.
    public var batch: Int = 5

    /// The providers' documented limits (``BillingModel/ProviderTraits/requestsPerMinute``)
    /// for test or `live` keys, the reserve and the sweep share at their defaults.
    public init(live: Bool = false) {
        self.init(perMinute: Dictionary(uniqueKeysWithValues: Provider.allCases.map { ($0, $0.traits.requestsPerMinute.forKeys(live: live)) }))
    }

    /// `perMinute` for the providers it names, their documented test-key limits for the rest.
    public init(perMinute: [Provider: Int], checkoutReservePercent: Int = 30, sweepPercent: Int = 40) {
        self.perMinute = perMinute
        self.checkoutReservePercent = checkoutReservePercent
        self.sweepPercent = sweepPercent
    }

    /// The split of `provider`'s limit.
    public func shares(_ provider: Provider) -> ProviderBudgetShares {
        let limit = perMinute[provider] ?? provider.traits.requestsPerMinute.test
        return ProviderBudgetShares(requestsPerMinute: limit, checkoutReservePercent: checkoutReservePercent, sweepPercent: sweepPercent)
    }

    /// Reads the variables above; problems are reported to `reader`.
    /// - Parameter live: whether the providers' keys are live ones (some providers allow more then).
    public static func fromEnvironment(_ reader: inout ConfigReader, live: Bool) -> ProviderBudgetSettings {
        var settings = ProviderBudgetSettings(live: live)
        for provider in Provider.allCases {
            settings.perMinute[provider] = reader.int(
                .providerBudgetPerMinute(provider), default: settings.shares(provider).requestsPerMinute, in: 1...100_000)
        }
        settings.checkoutReservePercent = reader.int(
            .providerBudgetCheckoutReservePercent, default: settings.checkoutReservePercent, in: 0...100)
        settings.sweepPercent = reader.int(.providerBudgetSweepPercent, default: settings.sweepPercent, in: 0...100)
        settings.batch = reader.int(.providerBudgetBatch, default: settings.batch, in: 1...100)
        if settings.sweepPercent + settings.checkoutReservePercent > 100 {
            reader.report(.providerBudgetSweepPercent, "must be at most 100 minus PROVIDER_BUDGET_CHECKOUT_RESERVE_PERCENT")
        }
        return settings
    }
}
