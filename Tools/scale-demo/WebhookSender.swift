import Crypto
import Foundation
import HTTPClient
import Synchronization

/// Counters the sender, the sampler and the failover read while sending runs.
final class SendProgress: Sendable {
    private struct Counts {
        var acknowledged = 0
        var retries503 = 0
        var retriesOther = 0
        var failures: [String] = []
    }
    private let counts = Mutex(Counts())

    var acknowledged: Int { counts.withLock { $0.acknowledged } }
    var retries503: Int { counts.withLock { $0.retries503 } }
    var retriesOther: Int { counts.withLock { $0.retriesOther } }
    var failures: [String] { counts.withLock { $0.failures } }

    func acknowledge() { counts.withLock { $0.acknowledged += 1 } }
    func retried(status: Int?) { counts.withLock { if status == 503 { $0.retries503 += 1 } else { $0.retriesOther += 1 } } }
    func failed(_ reason: String) { counts.withLock { if $0.failures.count < 20 { $0.failures.append(reason) } } }
}

/// Sends the plan's webhooks through the gateway at a steady pace, with at
/// most `concurrency` requests in flight, each signed like Lemon Squeezy
/// signs (`X-Signature`: hex HMAC-SHA256 of the raw body).
///
/// Order: a subscription's event is sent only after its previous event was
/// acknowledged (2xx), as a provider delivers one subscription's events;
/// different subscriptions interleave freely. 502, 503, 504, 429 and
/// transport errors are retried with backoff, as a provider would retry, and
/// counted.
struct WebhookSender: Sendable {
    let url: String
    let secret: [UInt8]
    let rate: Double
    let concurrency: Int
    let client: HTTPClient
    static let maxAttempts = 30

    init(gatewayURL: String, secret: String, rate: Double, concurrency: Int) {
        url = gatewayURL + "/api/webhooks/lemonsqueezy"
        self.secret = Array(secret.utf8)
        self.rate = rate
        self.concurrency = concurrency
        client = HTTPClient(configuration: HTTPClientConfiguration(
            timeout: .seconds(15), retryPolicy: .none, maxConnectionsPerHost: concurrency, maxIdleConnections: concurrency))
    }

    /// Sends everything; returns when every webhook was acknowledged or gave up.
    /// - Parameter started: called with the index of each webhook as it is started (drives the failover trigger).
    func send(_ webhooks: [PlannedWebhook], progress: SendProgress, started: @Sendable @escaping (Int) -> Void) async {
        let clock = ContinuousClock()
        let begin = clock.now
        // The task that sends each subscription's latest event, awaited by its next one.
        var previous: [Int: Task<Void, Never>] = [:]
        await withTaskGroup(of: Void.self) { group in
            var inFlight = 0
            for (index, webhook) in webhooks.enumerated() {
                let due = begin + .seconds(Double(index) / rate)
                if due > clock.now { try? await Task.sleep(until: due, clock: clock) }
                if inFlight >= concurrency {
                    await group.next()
                    inFlight -= 1
                }
                let before = previous[webhook.subscription]
                let task = Task { [self] in
                    await before?.value
                    await deliver(webhook, progress: progress)
                }
                previous[webhook.subscription] = task
                inFlight += 1
                group.addTask { await task.value }
                started(index)
            }
        }
    }

    private func deliver(_ webhook: PlannedWebhook, progress: SendProgress) async {
        let signature = Hex.encode(HMAC.sha256(key: secret, message: webhook.body))
        let headers = HTTPHeaders([
            ("Content-Type", "application/json"), ("X-Event-Name", webhook.eventName), ("X-Signature", signature),
        ])
        var attempt = 1
        while true {
            var status: Int?
            var retryAfter: Duration?
            do {
                let response = try await client.post(url, headers: headers, body: webhook.body)
                if response.isSuccess {
                    progress.acknowledge()
                    return
                }
                status = response.status
                guard [429, 502, 503, 504].contains(response.status) else {
                    progress.failed("\(webhook.webhookID): HTTP \(response.status) \(response.bodyString.prefix(200))")
                    return
                }
                retryAfter = response.headers["Retry-After"].flatMap { Double($0) }.map { .milliseconds(Int64(min($0, 2) * 1000)) }
            } catch {
                guard attempt < Self.maxAttempts else {
                    progress.failed("\(webhook.webhookID): \(error)")
                    return
                }
            }
            guard attempt < Self.maxAttempts else {
                progress.failed("\(webhook.webhookID): still HTTP \(status ?? 0) after \(attempt) attempts")
                return
            }
            progress.retried(status: status)
            let backoff = Duration.milliseconds(min(100 << min(attempt - 1, 4), 2000))
            try? await Task.sleep(for: retryAfter ?? backoff)
            attempt += 1
        }
    }
}
