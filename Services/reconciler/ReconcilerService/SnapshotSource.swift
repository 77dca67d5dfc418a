import Foundation
import HTTPClient
import BillingModel
import Providers

/// A provider list the sweep pages through.
public enum SweepList: String, Sendable, CaseIterable {
    /// Subscriptions (Lemon Squeezy `GET /v1/subscriptions?filter[store_id]=`, Paystack `GET /subscription`).
    case subscriptions
    /// Lemon Squeezy `GET /v1/orders?filter[store_id]=`.
    case orders
    /// Paystack `GET /transaction`.
    case transactions

    /// What one item is.
    public var entity: ProviderSnapshot.Entity {
        switch self {
        case .subscriptions: .subscription
        case .orders: .order
        case .transactions: .transaction
        }
    }

    /// The list whose items are `entity`.
    public init(_ entity: ProviderSnapshot.Entity) {
        switch entity {
        case .subscription: self = .subscriptions
        case .order: self = .orders
        case .transaction: self = .transactions
        }
    }

    /// The lists a provider has, in sweep order (its API part's ``Providers/APIProviding/sweptEntities``).
    public static func lists(of provider: Provider) -> [SweepList] {
        provider.apiRules.sweptEntities.map(SweepList.init)
    }
}

/// Where the reconciler reads the providers' objects: the real clients, or a fake in tests.
public protocol SnapshotSource: Sendable {
    /// The providers this source can reach.
    var providers: [Provider] { get }

    /// The single-object endpoint's answer for `target`, byte for byte.
    /// - Throws: ``Providers/ProviderError`` (`.notFound` when the provider has no such object).
    func fetch(_ target: EntityRef) async throws(ProviderError) -> ProviderDocument

    /// Page `number` (1-based) of `list` of `provider`.
    /// - Throws: ``Providers/ProviderError``.
    func page(_ provider: Provider, _ list: SweepList, number: Int) async throws(ProviderError) -> ProviderPage
}

/// The enabled providers' API clients as a ``SnapshotSource``.
public struct ProviderClients: SnapshotSource {
    /// The clients, in ``Provider/allCases`` order.
    public let clients: [any ProviderClient]

    public init(_ clients: [any ProviderClient]) {
        self.clients = clients
    }

    public var providers: [Provider] { clients.map(\.provider) }

    public func fetch(_ target: EntityRef) async throws(ProviderError) -> ProviderDocument {
        try await client(target.provider).document(target.entity, id: target.id)
    }

    public func page(_ provider: Provider, _ list: SweepList, number: Int) async throws(ProviderError) -> ProviderPage {
        try await client(provider).page(list.entity, number: number)
    }

    private func client(_ provider: Provider) throws(ProviderError) -> any ProviderClient {
        guard let client = clients.first(where: { $0.provider == provider }) else {
            throw ProviderError(provider: provider, operation: "fetch", kind: .validation, message: "provider is not enabled")
        }
        return client
    }
}
