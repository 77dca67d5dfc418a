import Timing
import Foundation
import HTTPClient
import BillingModel
import Postgres
import Synchronization

/// `scale-demo`: drives a running stack (see scripts/scale-demo.sh) with
/// signed Lemon Squeezy webhooks through the gateway, kills a projector
/// midway and adds another, then checks PostgreSQL against what was sent.
/// `--mode chaos` (`make chaos`, scripts/chaos.sh) sends the same plan the
/// same way through a sequence of faults instead (``ChaosRun``).
/// Exits 0 only when every check passes.
@main
struct ScaleDemo {
    static func main() async {
        let options: ScaleDemoOptions
        let stack: StackEnvironment
        do {
            options = try ScaleDemoOptions.parse(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
            stack = try StackEnvironment.load(stateDirectory: options.stateDirectory)
        } catch {
            FileHandle.standardError.write(Data("scale-demo: \(error)\n".utf8))
            exit(2)
        }
        do {
            exit(try await run(options, stack) ? 0 : 1)
        } catch {
            FileHandle.standardError.write(Data("scale-demo: \(error)\n".utf8))
            exit(1)
        }
    }

    static func say(_ line: String) { DemoSession.say(line) }

    static func run(_ options: ScaleDemoOptions, _ stack: StackEnvironment) async throws -> Bool {
        let session = try await DemoSession.make(options, stack)
        switch options.mode {
        case .scale: return try await runScale(session)
        case .chaos: return try await ChaosRun(session: session).run()
        }
    }

    /// `make scale-demo`: steady traffic, one projector killed midway and a replacement started.
    static func runScale(_ session: DemoSession) async throws -> Bool {
        let options = session.options, stack = session.stack, plan = session.plan, progress = session.progress
        let sampler = session.sampler, sender = session.sender, total = session.total
        let failover = ProjectorFailover(stateDirectory: options.stateDirectory, stackScript: options.stackScript, victim: options.killProjector)
        let events = FailoverEvents()

        let sampling = session.startSampling()
        let midway = total / 2
        let replacement = Mutex<Task<Void, Never>?>(nil)
        await sender.send(plan.webhooks, progress: progress) { index in
            guard options.killProjector > 0, index == midway else { return }
            let task = Task {
                do {
                    let pid = try failover.kill()
                    let at = session.now()
                    events.killed(at: at)
                    say(
                        "SIGKILL subscription-projector-\(options.killProjector) (pid \(pid)) at \(String(format: "%.1f", at)) s; starting a replacement"
                    )
                    let line = try await failover.startReplacement()
                    let ready = session.now()
                    let name = String(line.split(separator: " ").first ?? "replacement projector")
                    events.ready(name: name, at: ready)
                    say("\(line) ready at \(String(format: "%.1f", ready)) s")
                } catch {
                    events.failed("\(error)")
                }
            }
            replacement.withLock { $0 = task }
        }
        let sendSeconds = session.now()
        say(
            "all \(total) webhooks handled after \(String(format: "%.1f", sendSeconds)) s (\(progress.acknowledged) acknowledged); waiting for the group to catch up"
        )
        await replacement.withLock { $0 }?.value

        // Drain: the group's lag reaches 0, and PostgreSQL holds every acknowledged webhook.
        let pool = PostgresPool(configuration: try PostgresConfiguration(url: stack["DATABASE_URL"] ?? ""))
        let check = ProjectionCheck(pool: pool, plan: plan)
        let drainSeconds = await session.drain(check, timeout: options.drainTimeout)
        sampling.cancel()
        await sampling.value
        say(
            drainSeconds.map { "caught up after \(String(format: "%.1f", $0)) s; checking PostgreSQL" }
                ?? "not caught up within the drain timeout; checking anyway")

        var problems = session.sendingProblems()
        problems += sampler.failures.prefix(3).map { "lag sample failed: \($0)" }
        problems += events.failures
        if drainSeconds == nil { problems.append("the group did not catch up within \(options.drainTimeout)") }
        let result = try await check.run()
        await pool.close()

        var report = DemoReport(
            total: total, subscriptions: options.subscriptions, progress: progress, samples: sampler.all,
            sendSeconds: sendSeconds, drainSeconds: drainSeconds, killTime: nil, killedName: nil, replacement: nil,
            rebalance: nil, duplicatesAbsorbed: nil, checks: result, problems: problems)
        if let killTime = events.killTime {
            report.killTime = killTime
            report.killedName = "subscription-projector-\(options.killProjector)"
            report.replacement = events.replacement
            report.rebalance = RebalanceAnalysis.analyse(
                samples: sampler.all, killTime: killTime, threshold: options.stallThreshold.inSeconds)
            let current = (try? StackEnvironment.load(stateDirectory: options.stateDirectory)) ?? stack
            report.duplicatesAbsorbed = await DemoSession.duplicateCount(projectorURLs: current.projectorURLs, client: sender.client)
        }
        if !result.missingKeys.isEmpty {
            let audit = TopicAudit(brokers: (stack["KAFKA_BROKERS"] ?? "").split(separator: ",").map(String.init), topic: Topics.webhooks)
            do {
                report.audit = try await audit.locate(missing: result.missingKeys, runPrefix: WebhookPlan.dedupKey(webhookID: plan.runID)).lines
            } catch {
                report.audit = ["topic audit failed: \(error)"]
            }
        }
        if let url = stack.reconcilerURLs.first {
            let (lines, ready) = await reconcilerSummary(url: url, client: sender.client)
            report.reconciler = lines
            if !ready { report.problems.append("the reconciler was not ready at the end (see its /readyz)") }
        }
        FileHandle.standardOutput.write(Data((report.render() + "\n").utf8))
        return report.passed
    }

    /// The reconciler's view of the run, from its metrics, and whether its `/readyz` answers 200.
    static func reconcilerSummary(url: String, client: HTTPClient) async -> (lines: [String], ready: Bool) {
        let ready = (try? await client.get(url + "/readyz"))?.status == 200
        guard let response = try? await client.get(url + "/metrics"), response.isSuccess else { return (["metrics not available"], ready) }
        var values: [String: Double] = [:]
        for line in response.bodyString.split(separator: "\n") where line.hasPrefix("reconciler_") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let value = Double(parts[1]) else { continue }
            values[String(parts[0])] = value
        }
        func value(_ series: String) -> Int { Int(values[series] ?? 0) }
        let ls = #"provider="lemonsqueezy""#
        return (
            [
                "records consumed:   \(value(#"reconciler_records_total{result="queued",topic="storefront.webhooks.v1"}"#)) webhooks",
                "fetches:            \(value("reconciler_fetches_total{outcome=\"found\",\(ls)}")) found, "
                    + "\(value("reconciler_fetches_total{outcome=\"not_found\",\(ls)}")) not found, "
                    + "\(value("reconciler_fetches_total{outcome=\"retry\",\(ls)}")) parked for a retry; "
                    + "\(value("reconciler_provider_requests_total{\(ls)}")) provider requests, \(value("reconciler_provider_rate_limited_total{\(ls)}")) answered 429",
                "snapshots:          \(value("reconciler_snapshots_published_total{\(ls),trigger=\"webhook\"}")) published for webhooks, "
                    + "\(value("reconciler_snapshots_published_total{\(ls),trigger=\"sweep\"}")) by sweeps",
                "still pending:      \(value(#"reconciler_pending_objects{state="waiting"}"#)) waiting, \(value(#"reconciler_pending_objects{state="parked"}"#)) parked; "
                    + "oldest unreconciled webhook \(value("reconciler_oldest_unreconciled_webhook_seconds")) s old (the provider budget paces fetches)",
                "readiness:          \(ready ? "ready" : "NOT ready")",
            ], ready
        )
    }
}

/// When the failover happened, recorded from its task, read by the report.
final class FailoverEvents: Sendable {
    private struct State {
        var killTime: Double?
        var replacement: (name: String, readyAt: Double)?
        var failures: [String] = []
    }
    private let state = Mutex(State())
    var killTime: Double? { state.withLock { $0.killTime } }
    var replacement: (name: String, readyAt: Double)? { state.withLock { $0.replacement } }
    var failures: [String] { state.withLock { $0.failures } }
    func killed(at time: Double) { state.withLock { $0.killTime = time } }
    func ready(name: String, at time: Double) { state.withLock { $0.replacement = (name, time) } }
    func failed(_ reason: String) { state.withLock { $0.failures.append("failover: \(reason)") } }
}
