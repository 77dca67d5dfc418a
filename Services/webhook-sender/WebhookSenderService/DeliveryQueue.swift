import Foundation
import Postgres

/// What the dispatcher needs of the queue: the seam that lets its
/// scheduling be tested without PostgreSQL (``PostgresDeliveryQueue`` is the real one).
public protocol DeliveryQueue: Sendable {
    /// The endpoints deliveries may be claimed for: the enabled ones.
    func sendableEndpoints() async throws -> [WebhookEndpoint]
    /// Leases up to `slots[endpoint]` due heads of each endpoint, at most
    /// `total` in all, shared out one per endpoint before anyone's second.
    func claim(_ slots: [String: Int], total: Int, lease: Duration) async throws -> [Delivery]
    /// Records an attempt and what it says of its endpoint's health.
    /// - Returns: the circuit breaker's verdict after a failure, nil after a delivery.
    func record(
        _ delivery: Delivery, outcome: DeliveryOutcome, retryAt: Date?, disableAfter: Duration
    ) async throws
        -> EndpointStore.FailureVerdict?
}

/// The queue in PostgreSQL: ``DeliveryStore`` and ``EndpointStore``.
public struct PostgresDeliveryQueue: DeliveryQueue {
    let deliveries: DeliveryStore
    let endpoints: EndpointStore

    public init(deliveries: DeliveryStore, endpoints: EndpointStore) {
        self.deliveries = deliveries
        self.endpoints = endpoints
    }

    public func sendableEndpoints() async throws -> [WebhookEndpoint] {
        try await endpoints.enabled()
    }

    public func claim(_ slots: [String: Int], total: Int, lease: Duration) async throws -> [Delivery] {
        try await deliveries.claimDue(slots: slots, total: total, lease: lease)
    }

    /// The delivery's row and its endpoint's streak in one transaction.
    public func record(
        _ delivery: Delivery, outcome: DeliveryOutcome, retryAt: Date?, disableAfter: Duration
    ) async throws
        -> EndpointStore.FailureVerdict?
    {
        try await deliveries.pool.withTransaction { connection in
            try await deliveries.record(delivery, outcome: outcome, retryAt: retryAt, on: connection)
            switch outcome {
            case .delivered:
                try await endpoints.recordSuccess(delivery.endpointID, on: connection)
                return nil
            case .failed:
                return try await endpoints.recordFailure(delivery.endpointID, disableAfter: disableAfter, on: connection)
            }
        }
    }
}
