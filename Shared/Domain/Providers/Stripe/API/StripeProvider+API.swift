import BillingModel
import JSONCodec
import ProviderConfiguration
import Webhooks

extension StripeProvider: APIProviding {
    /// A client when the configuration has a secret key.
    public func makeClient(_ configuration: any ProviderConfigurationValue, options: ProviderClientOptions) -> (any ProviderClient)? {
        guard let configuration = configuration as? StripeConfiguration, configuration.secretKey != nil else { return nil }
        return StripeClient(
            provider: .stripe, configuration: configuration, httpClient: options.httpClient, pageSize: options.pageSize,
            retryPolicy: options.retryPolicy, budget: options.budget)
    }

    /// `GET /v1/subscriptions?status=all`. One-time purchases have no list
    /// worth sweeping (their PaymentIntents are fetched when a webhook names them).
    public var sweptEntities: [ProviderSnapshot.Entity] { [.subscription] }

    /// A Subscription: `id`, `status`, `customer`; Stripe objects carry no update time.
    public func listed(_ entity: ProviderSnapshot.Entity, item: JSONValue) -> ListedObject? {
        guard let id = item["id"]?.string else { return nil }
        let customer = item["customer"]?.string ?? item["customer", "id"]?.string
        return ListedObject(id: id, updatedAt: nil, status: item["status"]?.string, customerID: customer)
    }

    /// The single-object endpoints answer with the object itself, as a list holds it.
    public func singleObjectBody(_ entity: ProviderSnapshot.Entity, item raw: [UInt8]) -> [UInt8] { raw }

    /// None: Stripe's records are keyed by subscription or payment.
    public func customerID(inFetched body: [UInt8]) -> String? { nil }

    /// The subscription an event names, and the invoice of a paid renewal
    /// (fetched with its payments: the only link from the subscription to the
    /// PaymentIntent its refunds and disputes name); else a one-time
    /// purchase's PaymentIntent (`pi_…`), or its Checkout Session (`cs_…`)
    /// when the session named none. Invoices and PaymentIntents are both
    /// `transaction`s, told apart by their id's prefix.
    public func fetchTargets(for event: BillingEvent) -> [(entity: ProviderSnapshot.Entity, id: String)] {
        if let id = event.subscriptionID, !id.isEmpty {
            var targets: [(entity: ProviderSnapshot.Entity, id: String)] = [(.subscription, id)]
            if [.paymentSucceeded, .paymentRecovered].contains(event.kind), let invoice = event.invoiceID, invoice.hasPrefix("in_") {
                targets.append((.transaction, invoice))
            }
            return targets
        }
        guard event.kind == .orderCreated, let id = event.orderID, !id.isEmpty else { return [] }
        if id.hasPrefix("pi_") { return [(.transaction, id)] }
        if id.hasPrefix("cs_") { return [(.order, id)] }
        return []
    }
}

extension StripeClient: ProviderObjectSource {
    /// A Subscription, a Checkout Session (`order`), or an Invoice (`in_…`) or
    /// a PaymentIntent (`transaction`).
    public func document(_ entity: ProviderSnapshot.Entity, id: String) async throws(ProviderError) -> ProviderDocument {
        switch entity {
        case .subscription: try await subscriptionDocument(id: id)
        case .order: try await checkoutSessionDocument(id: id)
        case .transaction: id.hasPrefix("in_") ? try await invoiceDocument(id: id) : try await paymentIntentDocument(id: id)
        }
    }

    /// Page `number` of the subscriptions, through the cursors earlier pages
    /// ended at (walking from the first page when one was not read).
    public func page(_ entity: ProviderSnapshot.Entity, number: Int) async throws(ProviderError) -> ProviderPage {
        guard entity == .subscription else { throw .noEndpoint(provider, "page", "\(entity.rawValue) list") }
        guard number >= 1, number <= maximumPages else { throw failure("page", .validation, "page \(number) is outside 1…\(maximumPages)") }
        var cursor: String?
        if number > 1 {
            cursor = cursors.end(ofPage: number - 1)
            var read = 1
            while cursor == nil, read < number {
                let earlier = try await subscriptionsPage(startingAfter: read == 1 ? nil : cursors.end(ofPage: read - 1))
                guard earlier.hasMore, let end = earlier.nextCursor else {
                    return ProviderPage(number: number, items: [], hasMore: false, total: nil, pageCount: nil)
                }
                cursors.record(end, endingPage: read)
                read += 1
                cursor = cursors.end(ofPage: number - 1)
            }
        }
        let page = try await subscriptionsPage(startingAfter: cursor)
        if let end = page.nextCursor { cursors.record(end, endingPage: number) }
        return ProviderPage(number: number, items: page.items, hasMore: page.hasMore, total: nil, pageCount: nil)
    }
}
