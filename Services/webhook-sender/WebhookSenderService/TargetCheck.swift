import Foundation
import Synchronization

/// The check before each send that the endpoint's host still leads to an
/// address it may use (``EndpointURLPolicy``): a name that resolved to a
/// public address when it was added may point inside the network later
/// (DNS rebinding).
public protocol TargetCheck: Sendable {
    /// - Throws: ``EndpointURLPolicy/Refusal`` when it may not be sent to now.
    func check(_ endpoint: WebhookEndpoint) async throws
}

/// ``TargetCheck`` with the system's resolver, each host's verdict kept for
/// ``ttl`` so a busy endpoint costs one lookup per interval, not one per send.
///
/// Not airtight: libcurl resolves the name again when it connects, so a
/// name that changes its answer between the two lookups gets through once;
/// this check narrows that window to one lookup's time.
public final class ResolvingTargetCheck: TargetCheck {
    let resolver: any HostResolver
    let ttl: Duration
    private let verdicts = Mutex<[String: (refusal: EndpointURLPolicy.Refusal?, until: ContinuousClock.Instant)]>([:])

    public init(resolver: any HostResolver = SystemHostResolver(), ttl: Duration = .seconds(10)) {
        self.resolver = resolver
        self.ttl = ttl
    }

    public func check(_ endpoint: WebhookEndpoint) async throws {
        guard !endpoint.allowPrivateTargets else { return }
        let policy = EndpointURLPolicy(liveMode: false, allowPrivate: false)
        let host = try policy.host(of: endpoint.url)
        let now = ContinuousClock.now
        if let kept = verdicts.withLock({ $0[host] }), kept.until > now {
            if let refusal = kept.refusal { throw refusal }
            return
        }
        var refusal: EndpointURLPolicy.Refusal?
        do {
            // A name that does not resolve fails at libcurl's own lookup.
            _ = try await policy.check(host: host, resolver: resolver)
        } catch {
            refusal = error
        }
        verdicts.withLock { kept in
            if kept.count > 1000 { kept.removeAll() }
            kept[host] = (refusal, now + ttl)
        }
        if let refusal { throw refusal }
    }
}

/// No check: for tests whose receivers listen on loopback.
public struct NoTargetCheck: TargetCheck {
    public init() {}
    public func check(_ endpoint: WebhookEndpoint) async throws {}
}
