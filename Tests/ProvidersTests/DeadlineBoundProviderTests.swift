import Foundation
import BillingModel
import Providers
import Synchronization
import Testing

/// A provider call bounded by a deadline ends by it: an answer in time
/// passes through unchanged, a provider's own error too, and a call with no
/// answer by then fails as `unavailable` and is cancelled, not left running.
/// Over a fake provider: no server.
@Suite struct DeadlineBoundProviderTests {
    /// Answers `cancelSubscription` after `delay` (cancellable), or throws `error` at once.
    final class SlowProvider: PaymentProvider {
        let delay: Duration
        let error: ProviderError?
        let cancelledCalls = Mutex(0)
        init(delay: Duration = .zero, error: ProviderError? = nil) {
            self.delay = delay
            self.error = error
        }
        var provider: Provider { .lemonsqueezy }

        func cancelSubscription(id: String) async throws(ProviderError) -> ProviderSubscription {
            if let error { throw error }
            do {
                try await Task.sleep(for: delay)
            } catch {
                cancelledCalls.withLock { $0 += 1 }
                throw ProviderError(provider: provider, operation: "cancelSubscription", kind: .unavailable, message: "cancelled")
            }
            return ProviderSubscription(provider: provider, id: id, status: "cancelled")
        }

        /// A preview no provider would answer by default, after `delay`.
        func previewPlanChange(_ request: PlanChangePreviewRequest) async throws(ProviderError) -> PlanChangePreview {
            do { try await Task.sleep(for: delay) } catch {
                throw ProviderError(provider: provider, operation: "previewPlanChange", kind: .unavailable, message: "cancelled")
            }
            return PlanChangePreview(currency: "USD", dueNow: 7, next: nil, exact: true)
        }

        func catalog() async throws(ProviderError) -> [CatalogItem] { [] }
        func createCheckout(_ request: CheckoutRequest) async throws(ProviderError) -> ProviderCheckout { throw unused }
        func subscription(id: String) async throws(ProviderError) -> ProviderSubscription { throw unused }
        func subscriptions(customerEmail: EmailAddress) async throws(ProviderError) -> [ProviderSubscription] { [] }
        func resumeSubscription(id: String) async throws(ProviderError) -> ProviderSubscription { throw unused }
        func managementURL(subscriptionID: String) async throws(ProviderError) -> String { throw unused }
        func refund(_ request: RefundRequest) async throws(ProviderError) -> ProviderRefund { throw unused }
        var unused: ProviderError { ProviderError(provider: provider, operation: "unused", kind: .rejected, message: "not in this test") }
    }

    @Test func anAnswerInTimePassesThrough() async throws {
        let bounded = DeadlineBoundProvider(SlowProvider(delay: .milliseconds(10)), limit: .seconds(60))
        let answer = try await bounded.cancelSubscription(id: "7")
        #expect(answer.id == "7" && answer.status == "cancelled")
    }

    @Test func theProvidersOwnErrorPassesThrough() async throws {
        let refusal = ProviderError(provider: .lemonsqueezy, operation: "cancelSubscription", kind: .validation, status: 422, message: "no")
        let bounded = DeadlineBoundProvider(SlowProvider(error: refusal), limit: .seconds(60))
        await #expect(throws: refusal) { try await bounded.cancelSubscription(id: "7") }
    }

    @Test func noAnswerByTheDeadlineIsUnavailableAndTheCallIsCancelled() async throws {
        let slow = SlowProvider(delay: .seconds(60))
        let bounded = DeadlineBoundProvider(slow, limit: .milliseconds(200))
        let started = ContinuousClock.now
        do {
            _ = try await bounded.cancelSubscription(id: "7")
            Issue.record("a call with no answer returned")
        } catch {
            #expect(error.kind == .unavailable && error.operation == "cancelSubscription" && error.status == nil)
            #expect(error.message == "no answer within 200 ms")
        }
        let waited = ContinuousClock.now - started
        #expect(waited >= .milliseconds(200) && waited < .seconds(30), "waited \(waited)")
        #expect(slow.cancelledCalls.withLock { $0 } == 1, "the call in flight was cancelled")
    }

    @Test func aPlanChangePreviewIsForwardedAndBounded() async throws {
        let request = PlanChangePreviewRequest(
            subscriptionID: "7", change: PlanChange(variantID: "3", effective: .now, proration: .none), newPlan: nil, currentPlan: nil,
            periodEnd: nil)
        let quick = DeadlineBoundProvider(SlowProvider(delay: .milliseconds(10)), limit: .seconds(60))
        #expect(try await quick.previewPlanChange(request) == PlanChangePreview(currency: "USD", dueNow: 7, next: nil, exact: true))
        let slow = DeadlineBoundProvider(SlowProvider(delay: .seconds(60)), limit: .milliseconds(100))
        do {
            _ = try await slow.previewPlanChange(request)
            Issue.record("a preview with no answer returned")
        } catch {
            #expect(error.kind == .unavailable && error.operation == "previewPlanChange")
        }
    }

    @Test func aBoundedRegistryBoundsEveryClient() async throws {
        let registry = ProviderRegistry(providers: [SlowProvider(delay: .seconds(60))]).bounded(by: .milliseconds(50))
        let client = try #require(registry[.lemonsqueezy])
        await #expect(throws: ProviderError.self) { try await client.cancelSubscription(id: "1") }
        #expect(registry.enabled == [.lemonsqueezy])
    }
}
