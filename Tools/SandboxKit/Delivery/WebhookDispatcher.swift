import Foundation

/// Sends webhooks one at a time in the order they were produced, retries
/// failures on each provider's schedule (scaled), applies faults and keeps the
/// attempt log.
///
/// First attempts go out strictly in order from one worker; a retry waits in its
/// own task, so a failing webhook does not hold back later ones (as with the
/// real providers, whose ordering is not guaranteed either).
actor WebhookDispatcher {
    private let transport: any WebhookTransport
    private let clock: SandboxClock
    private let schedules: [SandboxProvider: [Double]]
    private let timeScale: Double
    private let acknowledged: ClosedRange<Int>
    private var generator: SeededGenerator

    private var queue: [PreparedDelivery] = []
    private var workerRunning = false
    private var pending = 0
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []
    private var nextDeliveryID = 0
    private(set) var faults = DeliveryFaults()
    private var attempts: [DeliveryAttempt] = []
    /// The log keeps the newest attempts only, so a long `make run` stays bounded.
    private let maxLogEntries = 5_000

    init(transport: any WebhookTransport, clock: SandboxClock, configuration: SandboxConfiguration) {
        self.transport = transport
        self.clock = clock
        self.schedules = [
            .lemonSqueezy: configuration.lemonSqueezy.retrySchedule, .paystack: configuration.paystack.retrySchedule,
            .stripe: configuration.stripe.retrySchedule,
        ]
        self.timeScale = max(0, configuration.retryTimeScale)
        self.acknowledged = configuration.acknowledgedStatuses
        self.generator = SeededGenerator(seed: configuration.shuffleSeed)
    }

    func setFaults(_ faults: DeliveryFaults) { self.faults = faults }

    /// Queues one batch (the webhooks of a single state change), applying the
    /// shuffle and duplicate faults; returns the delivery ids in sending order.
    @discardableResult
    func enqueue(_ batch: [PreparedDelivery]) -> [Int] {
        var items = batch
        if faults.shuffleNextBatch, items.count > 1 {
            faults.shuffleNextBatch = false
            let original = items.map(\.eventName)
            items.shuffle(using: &generator)
            // A shuffle that happens to keep the order would make the fault invisible.
            if items.map(\.eventName) == original { items.reverse() }
        }
        var ids: [Int] = []
        for var item in items {
            nextDeliveryID += 1
            item.id = nextDeliveryID
            queue.append(item)
            ids.append(item.id)
            if faults.duplicateNext > 0 {
                faults.duplicateNext -= 1
                var copy = item
                nextDeliveryID += 1
                copy.id = nextDeliveryID
                copy.duplicateOf = item.id
                queue.append(copy)
                ids.append(copy.id)
            }
        }
        pending += ids.count
        if !workerRunning, !queue.isEmpty {
            workerRunning = true
            Task { await self.drain() }
        }
        return ids
    }

    /// Returns once every queued webhook was delivered or gave up (retries included).
    func settle() async {
        if pending == 0 { return }
        await withCheckedContinuation { idleWaiters.append($0) }
    }

    func log(provider: SandboxProvider?, event: String?) -> [DeliveryAttempt] {
        attempts.filter { (provider == nil || $0.provider == provider) && (event == nil || $0.eventName == event) }
    }

    func clearLog() { attempts.removeAll() }

    private func drain() async {
        while !queue.isEmpty {
            let item = queue.removeFirst()
            if faults.delayMilliseconds > 0 {
                try? await clock.sleep(.milliseconds(faults.delayMilliseconds))
            }
            await attempt(item, number: 1)
        }
        workerRunning = false
    }

    private func attempt(_ item: PreparedDelivery, number: Int) async {
        let sentAt = clock.now()
        let headers = item.signedHeaders?(sentAt) ?? item.headers
        var status: Int?
        var failure: String?
        var simulated = false
        if faults.drops(item.subjects) {
            record(
                DeliveryAttempt(
                    deliveryID: item.id, provider: item.provider, eventName: item.eventName, url: item.url, attempt: number,
                    sentAt: sentAt, status: nil, error: "dropped by fault (drop_subscriptions/drop_checkouts); nothing was sent",
                    simulated: true, outcome: .dropped, headers: item.headers, body: item.body, duplicateOf: item.duplicateOf))
            finishOne()
            return
        }
        if item.url == nil {
            failure = "no webhook URL configured for \(item.provider.rawValue)"
        } else if faults.failNextAttempts > 0 {
            faults.failNextAttempts -= 1
            simulated = true
            status = 500
            failure = "simulated failure (fault injection); nothing was sent"
        } else if let url = item.url {
            do {
                status = try await transport.post(url: url, headers: headers, body: item.body)
            } catch let transportError {
                // Bound what an arbitrary transport error can put in the log.
                failure = String(String(describing: transportError).prefix(500))
            }
        }
        let ok = status.map { acknowledged.contains($0) } ?? false
        let schedule = schedules[item.provider] ?? []
        let canRetry = !ok && item.url != nil && number - 1 < schedule.count
        let outcome: DeliveryAttempt.Outcome = ok ? .delivered : (canRetry ? .retrying : .failed)
        record(
            DeliveryAttempt(
                deliveryID: item.id, provider: item.provider, eventName: item.eventName, url: item.url, attempt: number,
                sentAt: sentAt, status: status, error: failure, simulated: simulated, outcome: outcome,
                headers: headers, body: item.body, duplicateOf: item.duplicateOf))
        if canRetry {
            let delay = schedule[number - 1] * timeScale
            let clock = self.clock
            Task {
                try? await clock.sleep(.milliseconds(Int((delay * 1000).rounded())))
                await self.attempt(item, number: number + 1)
            }
        } else {
            finishOne()
        }
    }

    private func record(_ attempt: DeliveryAttempt) {
        attempts.append(attempt)
        if attempts.count > maxLogEntries { attempts.removeFirst(attempts.count - maxLogEntries) }
    }

    private func finishOne() {
        pending -= 1
        if pending == 0 {
            let waiters = idleWaiters
            idleWaiters.removeAll()
            for waiter in waiters { waiter.resume() }
        }
    }
}
