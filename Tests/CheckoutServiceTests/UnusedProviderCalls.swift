import BillingModel
import Providers

/// A fake provider's calls its test does not use: lists answer empty, the
/// rest throw. A fake adopts it and writes only the calls its test makes.
protocol UnusedProviderCalls: PaymentProvider {}

extension UnusedProviderCalls {
    var unused: ProviderError { ProviderError(provider: provider, operation: "unused", kind: .rejected, message: "not in this test") }

    func catalog() async throws(ProviderError) -> [CatalogItem] { [] }
    func createCheckout(_ request: CheckoutRequest) async throws(ProviderError) -> ProviderCheckout { throw unused }
    func subscription(id: String) async throws(ProviderError) -> ProviderSubscription { throw unused }
    func subscriptions(customerEmail: EmailAddress) async throws(ProviderError) -> [ProviderSubscription] { [] }
    func cancelSubscription(id: String) async throws(ProviderError) -> ProviderSubscription { throw unused }
    func resumeSubscription(id: String) async throws(ProviderError) -> ProviderSubscription { throw unused }
    func managementURL(subscriptionID: String) async throws(ProviderError) -> String { throw unused }
    func refund(_ request: RefundRequest) async throws(ProviderError) -> ProviderRefund { throw unused }
}
