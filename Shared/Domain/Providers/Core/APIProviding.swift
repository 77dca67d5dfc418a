import Foundation
import BillingModel
import HTTPClient
import JSONCodec
import ProviderConfiguration

/// The provider's own objects as its API answers them, for the reconciler:
/// one object by id, and pages of the lists sweeps walk. Each client conforms.
public protocol ProviderObjectSource: Sendable {
    /// The single-object endpoint's answer for `entity` `id`, byte for byte.
    /// - Throws: ``ProviderError`` (`.notFound` when the provider has no such object,
    ///   `.validation` for an entity it has no endpoint for).
    func document(_ entity: ProviderSnapshot.Entity, id: String) async throws(ProviderError) -> ProviderDocument

    /// Page `number` (1-based) of the list of `entity`.
    /// - Throws: ``ProviderError``.
    func page(_ entity: ProviderSnapshot.Entity, number: Int) async throws(ProviderError) -> ProviderPage
}

/// A client of one provider's API: what checkout, catalog and the reconciler call.
public typealias ProviderClient = PaymentProvider & ProviderObjectSource

/// How a client is built: the shared HTTP client and the pacing of its calls.
public struct ProviderClientOptions: Sendable {
    public var httpClient: HTTPClient
    /// Items per page of list calls (1…100).
    public var pageSize: Int
    /// Backoff for retried calls.
    public var retryPolicy: RetryPolicy
    /// Paces every request, retries included (nil: requests go out at once).
    public var budget: (any ProviderRequestBudget)?

    public init(
        httpClient: HTTPClient, pageSize: Int = 50, retryPolicy: RetryPolicy = ProviderRetry.defaultPolicy,
        budget: (any ProviderRequestBudget)? = nil
    ) {
        self.httpClient = httpClient
        self.pageSize = pageSize
        self.retryPolicy = retryPolicy
        self.budget = budget
    }
}

/// What a sweep reads from one item of a provider's list.
public struct ListedObject: Sendable, Equatable {
    public var id: String
    /// The provider's update time, when the object has one.
    public var updatedAt: Date?
    public var status: String?
    public var customerID: String?

    public init(id: String, updatedAt: Date?, status: String?, customerID: String?) {
        self.id = id
        self.updatedAt = updatedAt
        self.status = status
        self.customerID = customerID
    }
}

/// A provider's API part: its client, and how its objects and lists read.
/// Each provider's `API/` folder conforms its definition.
public protocol APIProviding: ProviderDefinition {
    /// A client for `configuration` (this provider's own configuration);
    /// nil when it lacks what the API needs.
    func makeClient(_ configuration: any ProviderConfigurationValue, options: ProviderClientOptions) -> (any ProviderClient)?

    /// The lists sweeps page through, in sweep order, by what each item is.
    var sweptEntities: [ProviderSnapshot.Entity] { get }

    /// A list item's id, update time, status and customer; nil when it has no id.
    func listed(_ entity: ProviderSnapshot.Entity, item: JSONValue) -> ListedObject?

    /// A list item wrapped the way the single-object endpoint answers, the item's bytes untouched.
    func singleObjectBody(_ entity: ProviderSnapshot.Entity, item raw: [UInt8]) -> [UInt8]

    /// The customer a fetched body names, where the provider keys its records by customer.
    func customerID(inFetched body: [UInt8]) -> String?

    /// The objects an event names that the reconciler fetches to check it.
    func fetchTargets(for event: BillingEvent) -> [(entity: ProviderSnapshot.Entity, id: String)]
}

extension Provider {
    /// This provider's API part.
    public var apiRules: any APIProviding { ProviderDirectory.part((any APIProviding).self, of: self) }
}
