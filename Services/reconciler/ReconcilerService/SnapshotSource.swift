import Foundation
import HTTPClient
import BillingModel
import Providers

/// A provider list the sweep pages through.
public enum SweepList: String, Sendable, CaseIterable {
    /// Lemon Squeezy `GET /v1/subscriptions?filter[store_id]=`, Paystack `GET /subscription`.
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

    /// The lists a provider has, in sweep order.
    public static func lists(of provider: Provider) -> [SweepList] {
        switch provider {
        case .lemonsqueezy: [.subscriptions, .orders]
        case .paystack: [.subscriptions, .transactions]
        }
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

/// The Lemon Squeezy and Paystack clients as a ``SnapshotSource``.
public struct ProviderClients: SnapshotSource {
    public let lemonSqueezy: LemonSqueezyClient?
    public let paystack: PaystackClient?

    public init(lemonSqueezy: LemonSqueezyClient?, paystack: PaystackClient?) {
        self.lemonSqueezy = lemonSqueezy
        self.paystack = paystack
    }

    public var providers: [Provider] {
        Provider.allCases.filter { provider in
            switch provider {
            case .lemonsqueezy: lemonSqueezy != nil
            case .paystack: paystack != nil
            }
        }
    }

    public func fetch(_ target: EntityRef) async throws(ProviderError) -> ProviderDocument {
        let provider = target.provider
        switch provider {
        case .lemonsqueezy:
            switch target.entity {
            case .subscription: return try await ls(provider).subscriptionDocument(id: target.id)
            case .order: return try await ls(provider).orderDocument(id: target.id)
            case .transaction: break
            }
        case .paystack:
            switch target.entity {
            case .subscription: return try await ps(provider).subscriptionDocument(code: target.id)
            case .transaction: return try await ps(provider).transactionDocument(reference: target.id)
            case .order: break
            }
        }
        throw ProviderError(
            provider: provider, operation: "fetch", kind: .validation, message: "\(provider.rawValue) has no \(target.entity.rawValue) endpoint")
    }

    public func page(_ provider: Provider, _ list: SweepList, number: Int) async throws(ProviderError) -> ProviderPage {
        switch provider {
        case .lemonsqueezy:
            switch list {
            case .subscriptions: return try await ls(provider).subscriptionsPage(number)
            case .orders: return try await ls(provider).ordersPage(number)
            case .transactions: break
            }
        case .paystack:
            switch list {
            case .subscriptions: return try await ps(provider).subscriptionsPage(number)
            case .transactions: return try await ps(provider).transactionsPage(number)
            case .orders: break
            }
        }
        throw ProviderError(provider: provider, operation: "page", kind: .validation, message: "\(provider.rawValue) has no \(list.rawValue) list")
    }

    private func ls(_ provider: Provider) throws(ProviderError) -> LemonSqueezyClient {
        guard let lemonSqueezy else {
            throw ProviderError(provider: provider, operation: "fetch", kind: .validation, message: "provider is not enabled")
        }
        return lemonSqueezy
    }

    private func ps(_ provider: Provider) throws(ProviderError) -> PaystackClient {
        guard let paystack else { throw ProviderError(provider: provider, operation: "fetch", kind: .validation, message: "provider is not enabled") }
        return paystack
    }
}
