import Timing
import ServiceSettings
import Foundation
import HTTPClient
import BillingModel
import Postgres
import Webhooks

/// What the scale demo and the chaos run share: the plan, the counters, the
/// lag sampler, the sender, the run's clock, and the drain and checks that
/// end both.
struct DemoSession: Sendable {
    let options: ScaleDemoOptions
    let stack: StackEnvironment
    let plan: WebhookPlan
    let progress: SendProgress
    let sampler: LagSampler
    let sender: WebhookSender
    /// The run's zero: every time in the reports counts from here.
    let start: ContinuousClock.Instant
    /// The same moment on the wall clock (PostgreSQL's timestamps are wall-clock).
    let wallStart: Date

    var total: Int { plan.webhooks.count }

    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data("scale-demo: \(line)\n".utf8))
    }

    /// Builds the plan (ids unique to this run) and the sampler, and starts the clock.
    static func make(_ options: ScaleDemoOptions, _ stack: StackEnvironment) async throws -> DemoSession {
        let runID = String(UUID().uuidString.lowercased().prefix(8))
        let ownership: OwnershipProof
        do {
            ownership = try OwnershipProof(key: Secret(stack["OWNERSHIP_PROOF_KEY"] ?? ""))
        } catch {
            throw StackEnvironment.Missing(
                description: "stack.env has no usable OWNERSHIP_PROOF_KEY (\(error)): start the stack with scripts/stack.sh")
        }
        let plan = WebhookPlan.make(
            subscriptions: options.subscriptions, eventsPerSubscription: options.eventsPerSubscription,
            runID: runID, start: Date().addingTimeInterval(-30 * 86_400), ownership: ownership)
        say(
            "run \(runID): \(plan.webhooks.count) webhooks for \(options.subscriptions) subscriptions at \(Int(options.rate))/s, "
                + "at most \(options.concurrency) in flight, via \(stack["GATEWAY_URL"] ?? "")")
        let start = ContinuousClock.now
        let wallStart = Date()
        let progress = SendProgress(origin: start)
        let group = stack["KAFKA_GROUP_ID"] ?? "subscription-projector"
        let sampler = try await LagSampler.make(brokers: stack["KAFKA_BROKERS"] ?? "", group: group, topic: Topics.webhooks, progress: progress)
        let sender = WebhookSender(
            gatewayURL: stack["GATEWAY_URL"] ?? "", secret: options.webhookSecret, rate: options.rate,
            concurrency: options.concurrency, retryDeadline: options.retryDeadline, retrySchedule: options.retrySchedule)
        return DemoSession(
            options: options, stack: stack, plan: plan, progress: progress, sampler: sampler, sender: sender,
            start: start, wallStart: wallStart)
    }

    /// Seconds since ``start``.
    func now() -> Double { (ContinuousClock.now - start).inSeconds }

    /// Samples the group's lag until the task is cancelled.
    func startSampling() -> Task<Void, Never> {
        let sampler = sampler, start = start, interval = options.sampleInterval
        return Task { await sampler.run(since: start, interval: interval) }
    }

    /// Waits, at most `timeout`, until the group's lag is 0 and PostgreSQL
    /// holds every acknowledged webhook.
    /// - Returns: when that was reached (seconds since the start), or nil.
    func drain(_ check: ProjectionCheck, timeout: Duration) async -> Double? {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            // A database that is restarting answers nothing for a moment: ask again.
            if let sample = await sampler.sample(since: start), sample.lag == 0,
                let applied = try? await check.appliedCount(), applied >= progress.acknowledged
            {
                return sample.time
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }

    /// What went wrong on the sending side, for the report.
    func sendingProblems() -> [String] {
        var problems = progress.failures.map { "webhook not acknowledged: \($0)" }
        if progress.failureCount > progress.failures.count {
            problems.append("… and \(progress.failureCount - progress.failures.count) more webhooks not acknowledged")
        }
        if progress.acknowledged != total { problems.append("\(total - progress.acknowledged) of \(total) webhooks were never acknowledged") }
        return problems
    }

    /// The sum of `projector_records_total{result="duplicate"}` over the projectors still running.
    static func duplicateCount(projectorURLs: [String], client: HTTPClient) async -> Int? {
        var total = 0
        var answered = false
        for url in projectorURLs {
            guard let response = try? await client.get(url + "/metrics"), response.isSuccess else { continue }
            answered = true
            for line in response.bodyString.split(separator: "\n")
            where line.hasPrefix("projector_records_total{") && line.contains("result=\"duplicate\"") {
                total += Int(Double(line.split(separator: " ").last ?? "") ?? 0)
            }
        }
        return answered ? total : nil
    }

    /// Every service's `/readyz` after the run, each asked again until it
    /// answers 200 or `within` has passed: one line per service, and the
    /// problems. Projectors that were killed do not answer at all; exactly
    /// `killedProjectors` of them may be silent.
    static func readiness(
        stack: StackEnvironment, client: HTTPClient, killedProjectors: Int,
        within: Duration = .seconds(30)
    ) async -> (lines: [String], problems: [String]) {
        var services: [(name: String, url: String)] = []
        for (name, key) in [("catalog", "CATALOG_URL"), ("checkout", "CHECKOUT_URL")] {
            if let url = stack[key] { services.append((name, url)) }
        }
        func list(_ key: String, _ name: String) -> [(String, String)] {
            (stack[key] ?? "").split(separator: " ").enumerated().map { ("\(name) \($0.offset + 1)", String($0.element)) }
        }
        services += list("WEBHOOK_RECEIVER_URLS", "webhook-receiver") + list("RECONCILER_URLS", "reconciler")
        let projectors = list("PROJECTOR_URLS", "projector")
        let clock = ContinuousClock()
        let deadline = clock.now + within
        func ask(_ url: String) async -> Int? {
            while true {
                let status = (try? await client.get(url + "/readyz"))?.status
                if status == 200 || status == nil || clock.now >= deadline { return status }
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
        var lines: [String] = [], problems: [String] = []
        var ready = 0, silent = 0
        for (name, url) in services {
            let status = await ask(url)
            if status == 200 {
                ready += 1
            } else {
                problems.append("\(name) (\(url)) not ready after the run: " + (status.map { "/readyz answered \($0)" } ?? "no answer"))
            }
        }
        var projectorsReady = 0
        for (_, url) in projectors {
            switch await ask(url) {
            case 200: projectorsReady += 1
            case nil: silent += 1
            case let status?: problems.append("a projector (\(url)) not ready after the run: /readyz answered \(status)")
            }
        }
        if silent != killedProjectors {
            problems.append("\(silent) projector(s) do not answer, \(killedProjectors) were killed")
        }
        lines.append(
            "readiness after the run: \(ready) of \(services.count) ready (catalog, checkout, receivers, reconcilers); "
                + "\(projectorsReady) projectors ready, \(silent) not running (\(killedProjectors) killed)")
        return (lines, problems)
    }

    /// The sum of one counter (a full series name, e.g. `projector_batch_failures_total`) over `urls`' metrics.
    static func metricSum(_ series: String, urls: [String], client: HTTPClient) async -> Int? {
        var total = 0.0
        var answered = false
        for url in urls {
            guard let response = try? await client.get(url + "/metrics"), response.isSuccess else { continue }
            answered = true
            for line in response.bodyString.split(separator: "\n") where line.hasPrefix(series + " ") {
                total += Double(line.split(separator: " ").last ?? "") ?? 0
            }
        }
        return answered ? Int(total) : nil
    }
}
