import BillingModel
import JSONCodec

/// How one provider's API words an error: its body read into a message, a
/// code and sometimes a kind. Each client gives its transport its own
/// (`Shared/Domain/Providers/<Provider>/API/`, or a provider's own API target:
/// hence `package`).
package protocol ProviderErrorFormat: Sendable {
    /// The error an error status's body states.
    func detail(_ body: JSONValue?) -> ProviderErrorDetail
    /// The error a 2xx body nevertheless reports (Paystack's `status: false`); nil by default.
    func failureInSuccess(_ body: JSONValue) -> ProviderErrorDetail?
}

extension ProviderErrorFormat {
    package func failureInSuccess(_ body: JSONValue) -> ProviderErrorDetail? { nil }
}

/// What an error body says.
package struct ProviderErrorDetail {
    var message: String?
    var code: String?
    /// Overrides the status-based kind (Paystack answers "Invalid key" with 400 or 401).
    var kind: ProviderError.Kind?

    package init(message: String? = nil, code: String? = nil, kind: ProviderError.Kind? = nil) {
        self.message = message
        self.code = code
        self.kind = kind
    }
}
