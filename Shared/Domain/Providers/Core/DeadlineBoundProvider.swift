import Timing
import BillingModel

/// A provider client whose every call ends within ``limit``, answered or not.
///
/// The HTTP client bounds each attempt, but a call may make several (retries,
/// a `Retry-After` honoured, a budget waited on), so a call can outlive the
/// request that made it: the app is answered 504 by the server while the
/// provider goes on and, for a cancel, acts. Bounded below the handler's
/// deadline, a late call fails as ``ProviderError/Kind/unavailable`` ("no
/// answer"), which the caller answers itself, knowing the provider may have
/// acted. The call in flight is cancelled, not abandoned.
public struct DeadlineBoundProvider: PaymentProvider {
    public let base: any PaymentProvider
    public let limit: Duration

    public init(_ base: any PaymentProvider, limit: Duration) {
        self.base = base
        self.limit = limit
    }

    public var provider: Provider { base.provider }

    public func catalog() async throws(ProviderError) -> [CatalogItem] {
        try await bounded("catalog") { [base] () async throws(ProviderError) in try await base.catalog() }
    }

    public func createCheckout(_ request: CheckoutRequest) async throws(ProviderError) -> ProviderCheckout {
        try await bounded("createCheckout") { [base] () async throws(ProviderError) in try await base.createCheckout(request) }
    }

    public func subscription(id: String) async throws(ProviderError) -> ProviderSubscription {
        try await bounded("subscription") { [base] () async throws(ProviderError) in try await base.subscription(id: id) }
    }

    public func subscriptions(customerEmail: EmailAddress) async throws(ProviderError) -> [ProviderSubscription] {
        try await bounded("subscriptions") { [base] () async throws(ProviderError) in try await base.subscriptions(customerEmail: customerEmail) }
    }

    public func cancelSubscription(id: String) async throws(ProviderError) -> ProviderSubscription {
        try await bounded("cancelSubscription") { [base] () async throws(ProviderError) in try await base.cancelSubscription(id: id) }
    }

    public func resumeSubscription(id: String) async throws(ProviderError) -> ProviderSubscription {
        try await bounded("resumeSubscription") { [base] () async throws(ProviderError) in try await base.resumeSubscription(id: id) }
    }

    public func managementURL(subscriptionID: String) async throws(ProviderError) -> String {
        try await bounded("managementURL") { [base] () async throws(ProviderError) in try await base.managementURL(subscriptionID: subscriptionID) }
    }

    public func refund(_ request: RefundRequest) async throws(ProviderError) -> ProviderRefund {
        try await bounded("refund") { [base] () async throws(ProviderError) in try await base.refund(request) }
    }

    public var planChangeTimings: Set<PlanChange.Effective> { base.planChangeTimings }

    public func changePlan(subscriptionID: String, _ change: PlanChange) async throws(ProviderError) -> ProviderSubscription {
        try await bounded("changePlan") { [base] () async throws(ProviderError) in try await base.changePlan(subscriptionID: subscriptionID, change) }
    }

    public func previewPlanChange(_ request: PlanChangePreviewRequest) async throws(ProviderError) -> PlanChangePreview {
        try await bounded("previewPlanChange") { [base] () async throws(ProviderError) in try await base.previewPlanChange(request) }
    }

    /// Races `call` against the limit; the loser is cancelled.
    private func bounded<T: Sendable>(
        _ operation: String, _ call: @escaping @Sendable () async throws(ProviderError) -> T
    ) async throws(ProviderError) -> T {
        let limit = limit
        let outcome = await withTaskGroup(of: Result<T, ProviderError>?.self) { group in
            group.addTask {
                do throws(ProviderError) { return .success(try await call()) } catch { return .failure(error) }
            }
            group.addTask {
                // nil: the limit passed (or the caller was cancelled).
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let outcome else {
            throw ProviderError(
                provider: provider, operation: operation, kind: .unavailable,
                message: "no answer within \(Int((limit.inSeconds * 1000).rounded())) ms")
        }
        return try outcome.get()
    }
}

extension ProviderRegistry {
    /// This registry with every client's calls bounded by `limit` (see ``DeadlineBoundProvider``).
    public func bounded(by limit: Duration) -> ProviderRegistry {
        ProviderRegistry(
            providers: enabled.compactMap { self[$0].map { DeadlineBoundProvider($0, limit: limit) } },
            verifiers: Provider.allCases.compactMap { verifier(for: $0) })
    }
}
