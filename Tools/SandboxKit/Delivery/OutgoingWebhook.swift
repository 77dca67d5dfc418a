/// The two emulated providers.
public enum SandboxProvider: String, Sendable, CaseIterable, Codable {
    case lemonSqueezy = "lemonsqueezy"
    case paystack = "paystack"
}

/// A webhook a state change produced, before it is encoded and signed.
struct OutgoingWebhook: Sendable {
    let provider: SandboxProvider
    let eventName: String
    let payload: JSONValue
}

/// A webhook ready to send: exact body bytes and signed headers.
struct PreparedDelivery: Sendable {
    var id: Int
    let provider: SandboxProvider
    let eventName: String
    let url: String?
    let headers: [(String, String)]
    let body: [UInt8]
    /// Set on the copy the duplicate fault adds.
    var duplicateOf: Int?
    /// The subscriptions and checkouts it is about (drop faults).
    var subjects = DeliverySubjects()
}
