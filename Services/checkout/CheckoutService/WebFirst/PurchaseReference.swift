import BillingModel

/// One purchase, as the redeem answers and the outgoing event name it.
struct PurchaseReference: Codable, Sendable, Hashable {
    var provider: String
    var type: PurchaseType
    var id: String

    /// The `storefront.commands.v1` and lock key form: `<provider>:<type>:<id>`.
    var key: String { "\(provider):\(type.rawValue):\(id)" }
}
