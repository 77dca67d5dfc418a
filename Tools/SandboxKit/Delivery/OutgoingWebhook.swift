import Foundation

/// The emulated providers.
public enum SandboxProvider: String, Sendable, CaseIterable, Codable {
    case lemonSqueezy = "lemonsqueezy"
    case paystack = "paystack"
    case stripe = "stripe"
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
    /// Signs an attempt at the time it is sent, for a provider whose signature
    /// carries a timestamp (Stripe): each retry is signed afresh, so it is not
    /// refused as a replay. nil: every attempt sends ``headers`` as they are.
    var signedHeaders: (@Sendable (Date) -> [(String, String)])? = nil
}
