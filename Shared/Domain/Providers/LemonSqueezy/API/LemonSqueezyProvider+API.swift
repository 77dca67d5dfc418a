import BillingModel
import JSONCodec
import ProviderConfiguration

extension LemonSqueezyProvider: APIProviding {
    /// A client when the configuration has an API key and a store.
    public func makeClient(_ configuration: any ProviderConfigurationValue, options: ProviderClientOptions) -> (any ProviderClient)? {
        guard let configuration = configuration as? LemonSqueezyConfiguration, configuration.hasAPICredentials else { return nil }
        return LemonSqueezyClient(
            configuration: configuration, httpClient: options.httpClient, pageSize: options.pageSize, retryPolicy: options.retryPolicy,
            budget: options.budget)
    }

    /// `GET /v1/subscriptions?filter[store_id]=`, then `GET /v1/orders?filter[store_id]=`.
    public var sweptEntities: [ProviderSnapshot.Entity] { [.subscription, .order] }

    /// A JSON:API resource: `id`, `attributes.updated_at`, `attributes.status`.
    public func listed(_ entity: ProviderSnapshot.Entity, item: JSONValue) -> ListedObject? {
        guard let id = item["id"]?.string else { return nil }
        return ListedObject(id: id, updatedAt: item["attributes", "updated_at"]?.date, status: item["attributes", "status"]?.string, customerID: nil)
    }

    /// `{"data":<resource>}`.
    public func singleObjectBody(_ entity: ProviderSnapshot.Entity, item raw: [UInt8]) -> [UInt8] {
        Array(#"{"data":"#.utf8) + raw + Array("}".utf8)
    }

    /// None: Lemon Squeezy's records are keyed by subscription or order.
    public func customerID(inFetched body: [UInt8]) -> String? { nil }

    /// The subscription when the event names one (subscription and invoice
    /// events), else the order (order and license-key events).
    public func fetchTargets(for event: BillingEvent) -> [(entity: ProviderSnapshot.Entity, id: String)] {
        if let id = event.subscriptionID, !id.isEmpty { return [(.subscription, id)] }
        if let id = event.orderID, !id.isEmpty { return [(.order, id)] }
        return []
    }
}

extension LemonSqueezyClient: ProviderObjectSource {
    public func document(_ entity: ProviderSnapshot.Entity, id: String) async throws(ProviderError) -> ProviderDocument {
        switch entity {
        case .subscription: try await subscriptionDocument(id: id)
        case .order: try await orderDocument(id: id)
        case .transaction: throw .noEndpoint(provider, "fetch", entity.rawValue)
        }
    }

    public func page(_ entity: ProviderSnapshot.Entity, number: Int) async throws(ProviderError) -> ProviderPage {
        switch entity {
        case .subscription: try await subscriptionsPage(number)
        case .order: try await ordersPage(number)
        case .transaction: throw .noEndpoint(provider, "page", "\(entity.rawValue) list")
        }
    }
}
