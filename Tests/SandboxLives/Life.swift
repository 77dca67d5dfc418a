import Foundation

/// One webhook a provider sent: its provider's name (as Storefront's
/// `Provider` spells it), the body as sent, and the provider's time of sending.
public struct LifeRecord: Sendable, Hashable {
    public var provider: String
    public var body: [UInt8]
    public var sentAt: Date
}

/// One purchase's life at one provider: the webhooks the provider sent for
/// it, in the true order (the sandbox's, which follows the provider's docs).
public struct Life: Sendable {
    public var provider: String
    public var name: String
    public var records: [LifeRecord]
}
