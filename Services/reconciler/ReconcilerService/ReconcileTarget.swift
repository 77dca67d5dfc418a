import Foundation
import BillingModel

/// One provider object the reconciler fetches.
public struct EntityRef: Hashable, Sendable, CustomStringConvertible {
    public var provider: Provider
    public var entity: ProviderSnapshot.Entity
    /// Lemon Squeezy subscription or order id; Paystack `SUB_…` code or transaction reference.
    public var id: String

    public init(_ provider: Provider, _ entity: ProviderSnapshot.Entity, _ id: String) {
        self.provider = provider
        self.entity = entity
        self.id = id
    }

    /// `lemonsqueezy:subscription:42`.
    public var description: String { "\(provider.rawValue):\(entity.rawValue):\(id)" }
}

/// Why an object is fetched; becomes ``Models/ProviderSnapshot/trigger``.
public struct ReconcileTrigger: Sendable, Hashable {
    public enum Kind: String, Sendable, CaseIterable {
        /// A webhook envelope touched it.
        case webhook
        /// A cancel or resume command was carried out on it, or a read asked
        /// for it (`refresh_requested`: its period ended without news).
        case command
        /// The scheduled sweep listed it.
        case sweep
        /// `storefront reconcile` listed it.
        case cli
    }

    public var kind: Kind
    /// `webhook:<dedup key>`, `command:<command id>`, `sweep:<sweep id>`, `cli:<sweep id>`.
    public var label: String
    /// When the record behind it was received (the envelope's `receivedAt`,
    /// the command's `requestedAt`): snapshot lag is measured from here.
    public var receivedAt: Date
    /// The fetch must not start before this (commands: once the provider has had time).
    public var notBefore: Date?

    public init(kind: Kind, label: String, receivedAt: Date, notBefore: Date? = nil) {
        self.kind = kind
        self.label = label
        self.receivedAt = receivedAt
        self.notBefore = notBefore
    }

    public static func webhook(_ dedupKey: String, receivedAt: Date) -> ReconcileTrigger {
        ReconcileTrigger(kind: .webhook, label: "webhook:\(dedupKey)", receivedAt: receivedAt)
    }

    public static func command(_ commandID: String, requestedAt: Date, notBefore: Date) -> ReconcileTrigger {
        ReconcileTrigger(kind: .command, label: "command:\(commandID)", receivedAt: requestedAt, notBefore: notBefore)
    }
}

/// A request to fetch one object, from one consumed record.
public struct ReconcileRequest: Sendable, Hashable {
    public var target: EntityRef
    public var trigger: ReconcileTrigger
    /// The provider customer the record names (Paystack `CUS_…`), for the
    /// snapshot's key when the fetched object does not say.
    public var customerID: String?

    public init(target: EntityRef, trigger: ReconcileTrigger, customerID: String? = nil) {
        self.target = target
        self.trigger = trigger
        self.customerID = customerID
    }
}
