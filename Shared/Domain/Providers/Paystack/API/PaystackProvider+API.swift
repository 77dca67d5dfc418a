import BillingModel
import JSONCodec
import ProviderConfiguration

extension PaystackProvider: APIProviding {
    public func makeClient(_ configuration: any ProviderConfigurationValue, options: ProviderClientOptions) -> (any ProviderClient)? {
        guard let configuration = configuration as? PaystackConfiguration else { return nil }
        return PaystackClient(
            configuration: configuration, httpClient: options.httpClient, pageSize: options.pageSize, retryPolicy: options.retryPolicy,
            budget: options.budget)
    }

    /// `GET /subscription`, then `GET /transaction`.
    public var sweptEntities: [ProviderSnapshot.Entity] { [.subscription, .transaction] }

    /// A subscription by `subscription_code` with its `updatedAt`; a
    /// transaction by `reference`, with no update time (a refund changes
    /// `status` and nothing else). Both name their customer's code.
    public func listed(_ entity: ProviderSnapshot.Entity, item: JSONValue) -> ListedObject? {
        let isTransaction = entity == .transaction
        guard let id = isTransaction ? item["reference"]?.string : item["subscription_code"]?.string else { return nil }
        let updated = isTransaction ? nil : (item["updatedAt"] ?? item["updated_at"])?.date
        return ListedObject(id: id, updatedAt: updated, status: item["status"]?.string, customerID: item["customer", "customer_code"]?.string)
    }

    /// `{"status":true,"message":"…","data":<object>}`, as the single-object endpoints answer.
    public func singleObjectBody(_ entity: ProviderSnapshot.Entity, item raw: [UInt8]) -> [UInt8] {
        let message = entity == .transaction ? "Verification successful" : "Subscription retrieved successfully"
        return Array(#"{"status":true,"message":"\#(message)","data":"#.utf8) + raw + Array("}".utf8)
    }

    /// `data.customer.customer_code`: Paystack's records are keyed by customer.
    public func customerID(inFetched body: [UInt8]) -> String? {
        guard let document = try? JSONValue.parse(body) else { return nil }
        return document["data", "customer", "customer_code"]?.string
    }

    /// The subscription (`SUB_…` code) and the transaction (reference) the
    /// event names: charges, invoices and refunds carry a reference,
    /// subscription and invoice events a code.
    public func fetchTargets(for event: BillingEvent) -> [(entity: ProviderSnapshot.Entity, id: String)] {
        var targets: [(entity: ProviderSnapshot.Entity, id: String)] = []
        if let code = event.subscriptionID, !code.isEmpty { targets.append((.subscription, code)) }
        if let reference = event.transactionReference, !reference.isEmpty { targets.append((.transaction, reference)) }
        return targets
    }
}

extension PaystackClient: ProviderObjectSource {
    public func document(_ entity: ProviderSnapshot.Entity, id: String) async throws(ProviderError) -> ProviderDocument {
        switch entity {
        case .subscription: try await subscriptionDocument(code: id)
        case .transaction: try await transactionDocument(reference: id)
        case .order: throw .noEndpoint(provider, "fetch", entity.rawValue)
        }
    }

    public func page(_ entity: ProviderSnapshot.Entity, number: Int) async throws(ProviderError) -> ProviderPage {
        switch entity {
        case .subscription: try await subscriptionsPage(number)
        case .transaction: try await transactionsPage(number)
        case .order: throw .noEndpoint(provider, "page", "\(entity.rawValue) list")
        }
    }
}
