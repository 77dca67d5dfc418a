import Foundation
import HTTPClient
import Synchronization
@testable import WebhookSenderService

/// The queue's contract in memory, for the dispatcher's tests: only the
/// head of each (endpoint, ordering key) is due, a claim serves only
/// enabled endpoints, up to each one's slots and the total, and records
/// every claim's request so a test sees what the dispatcher asked for.
final class FakeDeliveryQueue: DeliveryQueue {
    struct State {
        var endpoints: [WebhookEndpoint] = []
        var pending: [Delivery] = []
        var leased: Set<String> = []
        var delivered: [String: [String]] = [:]
        var requests: [[String: Int]] = []
        /// After this many failures an endpoint is reported disabled (the breaker's verdict).
        var disableAfterFailures: [String: Int] = [:]
        var failures: [String: Int] = [:]
        /// How many claims had been asked for when the breaker's verdict was given.
        var trippedAt: Int?
    }

    let state = Mutex(State())

    init(endpoints: [WebhookEndpoint], deliveries: [Delivery]) {
        state.withLock {
            $0.endpoints = endpoints
            $0.pending = deliveries
        }
    }

    func sendableEndpoints() async throws -> [WebhookEndpoint] {
        state.withLock { $0.endpoints.filter(\.enabled) }
    }

    func claim(_ slots: [String: Int], total: Int, lease: Duration) async throws -> [Delivery] {
        state.withLock { state in
            state.requests.append(slots)
            let enabled = Set(state.endpoints.filter(\.enabled).map(\.id))
            var seenKeys = Set<String>()
            var heads: [String: [Delivery]] = [:]
            for delivery in state.pending {
                let key = delivery.endpointID + "\n" + delivery.orderingKey
                guard seenKeys.insert(key).inserted, !state.leased.contains(delivery.eventID) else { continue }
                heads[delivery.endpointID, default: []].append(delivery)
            }
            var taken: [Delivery] = []
            // One per endpoint before anyone's second, as the SQL orders by place.
            var place = 0
            while taken.count < total {
                var any = false
                for id in slots.keys.sorted() where enabled.contains(id) && taken.count < total {
                    guard place < slots[id, default: 0], let list = heads[id], place < list.count else { continue }
                    taken.append(list[place])
                    any = true
                }
                if !any { break }
                place += 1
            }
            for delivery in taken { state.leased.insert(delivery.eventID) }
            return taken
        }
    }

    func record(
        _ delivery: Delivery, outcome: DeliveryOutcome, retryAt: Date?, disableAfter: Duration
    ) async throws
        -> EndpointStore.FailureVerdict?
    {
        state.withLock { state in
            state.leased.remove(delivery.eventID)
            switch outcome {
            case .delivered:
                state.pending.removeAll { $0.eventID == delivery.eventID && $0.endpointID == delivery.endpointID }
                state.delivered[delivery.endpointID, default: []].append(delivery.eventID)
                return nil
            case .failed:
                if let index = state.pending.firstIndex(where: { $0.eventID == delivery.eventID && $0.endpointID == delivery.endpointID }) {
                    state.pending[index].attempts += 1
                }
                state.failures[delivery.endpointID, default: 0] += 1
                if let limit = state.disableAfterFailures[delivery.endpointID], state.failures[delivery.endpointID, default: 0] >= limit,
                    let index = state.endpoints.firstIndex(where: { $0.id == delivery.endpointID && $0.enabled })
                {
                    state.endpoints[index].enabled = false
                    state.endpoints[index].disabledReason = .failing
                    state.trippedAt = state.requests.count
                    return .disabled(failingSince: Date(timeIntervalSince1970: 0))
                }
                return .failing(since: Date(timeIntervalSince1970: 0))
            }
        }
    }
}

/// A transport whose `blackHoled` hosts accept and never answer (until
/// released, so a test can end), whose `failing` hosts answer 500, and
/// which answers 204 elsewhere; it counts attempts in flight per host.
final class ScriptedTransport: WebhookTransport {
    struct Released: Error {}
    struct State {
        var inFlight: [String: Int] = [:]
        var mostInFlight: [String: Int] = [:]
        var attempts: [String: Int] = [:]
        var released = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    let blackHoled: Set<String>
    let failing: Set<String>
    let state = Mutex(State())

    init(blackHoled: Set<String> = [], failing: Set<String> = []) {
        self.blackHoled = blackHoled
        self.failing = failing
    }

    func post(url: String, headers: HTTPHeaders, body: [UInt8]) async throws -> Int {
        let host = URL(string: url)?.host ?? url
        state.withLock {
            $0.inFlight[host, default: 0] += 1
            $0.attempts[host, default: 0] += 1
            $0.mostInFlight[host] = max($0.mostInFlight[host] ?? 0, $0.inFlight[host] ?? 0)
        }
        defer { state.withLock { $0.inFlight[host, default: 1] -= 1 } }
        if blackHoled.contains(host) {
            await withCheckedContinuation { continuation in
                let resume = state.withLock { state -> Bool in
                    if state.released { return true }
                    state.waiting.append(continuation)
                    return false
                }
                if resume { continuation.resume() }
            }
            throw Released()
        }
        return failing.contains(host) ? 500 : 204
    }

    /// Ends every black-holed attempt (as its timeout would).
    func release() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.released = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}
