import Timing
import CryptoPrimitives
import Foundation
import HTTPClient
import Synchronization

/// What the gateway answered to one attempt.
enum AttemptOutcome: Sendable {
    case success
    case status(Int)
    case transportError
}

/// Counters the sender, the sampler, the faults and the reports read while
/// sending runs, plus every answer in 100 ms buckets (the timeline).
final class SendProgress: Sendable {
    /// Answers that completed in one 100 ms slice of the run.
    struct Bucket: Sendable {
        var succeeded = 0
        var unavailable = 0
        var otherStatus = 0
        var transportErrors = 0
        var nonSuccess: Int { unavailable + otherStatus + transportErrors }
    }

    private struct Counts {
        var acknowledged = 0
        var retries503 = 0
        var retriesOther = 0
        var answers: [Int: Int] = [:]
        var transportErrors = 0
        var retriedWebhooks = 0
        var mostAttempts = 1
        var slowestDelivery = 0.0
        var buckets: [Bucket] = []
        var failures: [String] = []
        var failureCount = 0
    }

    /// When the run started: bucket times count from here.
    let origin: ContinuousClock.Instant
    static let bucketSeconds = 0.1
    private let counts = Mutex(Counts())

    init(origin: ContinuousClock.Instant) { self.origin = origin }

    var acknowledged: Int { counts.withLock { $0.acknowledged } }
    var retries503: Int { counts.withLock { $0.retries503 } }
    var retriesOther: Int { counts.withLock { $0.retriesOther } }
    /// Attempts answered, by HTTP status (2xx included).
    var answers: [Int: Int] { counts.withLock { $0.answers } }
    var transportErrors: Int { counts.withLock { $0.transportErrors } }
    /// Webhooks that needed more than one attempt.
    var retriedWebhooks: Int { counts.withLock { $0.retriedWebhooks } }
    var mostAttempts: Int { counts.withLock { $0.mostAttempts } }
    /// Longest time from a webhook's first attempt to its 2xx, in seconds.
    var slowestDelivery: Double { counts.withLock { $0.slowestDelivery } }
    var buckets: [Bucket] { counts.withLock { $0.buckets } }
    /// The first 20 reasons a webhook was given up on.
    var failures: [String] { counts.withLock { $0.failures } }
    /// How many webhooks were given up on.
    var failureCount: Int { counts.withLock { $0.failureCount } }

    /// Seconds since ``origin``.
    func now() -> Double { (ContinuousClock.now - origin).inSeconds }

    func acknowledge() { counts.withLock { $0.acknowledged += 1 } }
    func retried(status: Int?) { counts.withLock { if status == 503 { $0.retries503 += 1 } else { $0.retriesOther += 1 } } }
    func failed(_ reason: String) {
        counts.withLock {
            $0.failureCount += 1
            if $0.failures.count < 20 { $0.failures.append(reason) }
        }
    }

    /// Records one attempt's answer at the current time.
    func record(_ outcome: AttemptOutcome) {
        let slot = max(0, Int(now() / Self.bucketSeconds))
        counts.withLock { counts in
            while counts.buckets.count <= slot { counts.buckets.append(Bucket()) }
            switch outcome {
            case .success:
                counts.buckets[slot].succeeded += 1
                counts.answers[200, default: 0] += 1
            case .status(let status):
                if status == 503 { counts.buckets[slot].unavailable += 1 } else { counts.buckets[slot].otherStatus += 1 }
                counts.answers[status, default: 0] += 1
            case .transportError:
                counts.buckets[slot].transportErrors += 1
                counts.transportErrors += 1
            }
        }
    }

    /// Records a delivered webhook's attempts and how long it took from its first attempt.
    func delivered(attempts: Int, seconds: Double) {
        counts.withLock {
            if attempts > 1 { $0.retriedWebhooks += 1 }
            $0.mostAttempts = max($0.mostAttempts, attempts)
            $0.slowestDelivery = max($0.slowestDelivery, seconds)
        }
    }
}

/// Sends the plan's webhooks through the gateway at a steady pace, with at
/// most `concurrency` requests in flight, each signed like Lemon Squeezy
/// signs (`X-Signature`: hex HMAC-SHA256 of the raw body).
///
/// Order: a subscription's event is sent only after its previous event was
/// acknowledged (2xx), as a provider delivers one subscription's events;
/// different subscriptions interleave freely.
///
/// Retries, as a provider retries: every answer that is not 2xx and that
/// waiting may cure (5xx, 408, 425, 429, no answer at all) is retried with
/// jittered exponential backoff (100 ms doubling to 2 s, or the answer's
/// `Retry-After` up to 2 s) until it is answered 2xx or `retryDeadline`
/// has passed since its first attempt. Any other 4xx (a bad signature, a
/// body the receiver refuses) cannot be cured by waiting: the webhook is
/// given up on at once and reported.
///
/// With a `retrySchedule` (`make chaos`: Lemon Squeezy's 5 s, 25 s, 125 s)
/// the sender waits exactly those delays between attempts instead and gives
/// up once they are used up, as Lemon Squeezy does; `retryDeadline` then
/// only bounds the whole.
struct WebhookSender: Sendable {
    let url: String
    let secret: [UInt8]
    let rate: Double
    let concurrency: Int
    let retryDeadline: Duration
    /// The delays between attempts, as the provider spaces them; nil: the steady backoff above.
    let retrySchedule: [Duration]?
    let client: HTTPClient

    init(
        gatewayURL: String, secret: String, rate: Double, concurrency: Int, retryDeadline: Duration,
        retrySchedule: [Duration]? = nil
    ) {
        url = gatewayURL + "/api/webhooks/lemonsqueezy"
        self.secret = Array(secret.utf8)
        self.rate = rate
        self.concurrency = concurrency
        self.retryDeadline = retryDeadline
        self.retrySchedule = retrySchedule
        client = HTTPClient(
            configuration: HTTPClientConfiguration(
                timeout: .seconds(15), retryPolicy: .none, maxConnectionsPerHost: concurrency, maxIdleConnections: concurrency))
    }

    /// Sends everything; returns when every webhook was acknowledged or given up on.
    /// - Parameters:
    ///   - gate: awaited before each webhook is started (by index); time spent
    ///     waiting there shifts the pace, so sending resumes at `rate`, not in a burst.
    ///   - started: called with the index of each webhook once it is started.
    func send(
        _ webhooks: [PlannedWebhook], progress: SendProgress,
        gate: @Sendable (Int) async -> Void = { _ in },
        started: @Sendable @escaping (Int) -> Void
    ) async {
        let clock = ContinuousClock()
        var begin = clock.now
        // The task that sends each subscription's latest event, awaited by its next one.
        var previous: [Int: Task<Void, Never>] = [:]
        await withTaskGroup(of: Void.self) { group in
            var inFlight = 0
            for (index, webhook) in webhooks.enumerated() {
                let gated = clock.now
                await gate(index)
                begin += clock.now - gated
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

    /// Whether waiting may cure an answer (a provider retries these).
    static func isRetryable(status: Int) -> Bool {
        status >= 500 || [408, 425, 429].contains(status)
    }

    private func deliver(_ webhook: PlannedWebhook, progress: SendProgress) async {
        let signature = Hex.encode(HMAC.sha256(key: secret, message: webhook.body))
        let headers = HTTPHeaders([
            ("Content-Type", "application/json"), ("X-Event-Name", webhook.eventName), ("X-Signature", signature),
        ])
        let clock = ContinuousClock()
        let first = clock.now
        var attempt = 1
        while true {
            var status: Int?
            var retryAfter: Duration?
            var problem: String
            do {
                let response = try await client.post(url, headers: headers, body: webhook.body)
                if response.isSuccess {
                    progress.record(.success)
                    progress.acknowledge()
                    progress.delivered(attempts: attempt, seconds: (clock.now - first).inSeconds)
                    return
                }
                progress.record(.status(response.status))
                status = response.status
                problem = "HTTP \(response.status) \(response.bodyString.prefix(200))"
                guard Self.isRetryable(status: response.status) else {
                    progress.failed("\(webhook.webhookID): \(problem) (not retryable)")
                    return
                }
                retryAfter = response.headers["Retry-After"].flatMap { Double($0) }.map { .milliseconds(Int64(min($0, 2) * 1000)) }
            } catch {
                progress.record(.transportError)
                problem = "\(error)"
            }
            let pause: Duration
            if let retrySchedule {
                // The provider's own spacing; once it is used up the provider gives up.
                guard attempt <= retrySchedule.count else {
                    progress.failed("\(webhook.webhookID): still \(problem) after \(attempt) attempts (the provider's retries used up)")
                    return
                }
                pause = retrySchedule[attempt - 1]
            } else {
                let backoff = Duration.milliseconds(min(100 << min(attempt - 1, 5), 2000))
                // Full jitter in the upper half, so retries after an outage do not arrive in step.
                pause = (retryAfter ?? backoff) * Double.random(in: 0.5...1.0)
            }
            guard clock.now + pause - first < retryDeadline else {
                progress.failed("\(webhook.webhookID): still \(problem) after \(attempt) attempts in \(retryDeadline)")
                return
            }
            progress.retried(status: status)
            try? await Task.sleep(for: pause)
            attempt += 1
        }
    }
}
