import BillingModel

extension ProviderError {
    /// The provider has no endpoint for what was asked (an entity it does not have).
    static func noEndpoint(_ provider: Provider, _ operation: String, _ what: String) -> ProviderError {
        ProviderError(provider: provider, operation: operation, kind: .validation, message: "\(provider.rawValue) has no \(what) endpoint")
    }
}
