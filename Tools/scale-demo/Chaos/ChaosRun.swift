import Foundation
import Postgres

/// `make chaos`: the plan's webhooks through the gateway while the faults
/// happen one after another (``ChaosDirector``), then PostgreSQL checked
/// against what the providers consider delivered (every webhook answered
/// 2xx): none lost, none applied twice, every subscription in the state of
/// its last event. Prints the timeline and the recovery of each fault.
struct ChaosRun {
    let session: DemoSession

    func run() async throws -> Bool {
        let options = session.options, progress = session.progress, sampler = session.sampler
        let log = ChaosLog()
        let director = ChaosDirector(session: session, log: log)
        let sampling = session.startSampling()
        log.event(0, "sending \(session.total) webhooks; faults \(ChaosFault.describe(options.faults))")
        let directing = Task { await director.run() }
        await session.sender.send(
            session.plan.webhooks, progress: progress,
            gate: { await director.gate($0) }, started: { director.started($0) })
        let sendSeconds = session.now()
        log.event(sendSeconds, "every webhook answered 2xx or given up on (\(progress.acknowledged) of \(session.total) delivered)")
        await directing.value

        let pool = PostgresPool(configuration: try PostgresConfiguration(url: session.stack["DATABASE_URL"] ?? ""))
        let check = ProjectionCheck(pool: pool, plan: session.plan)
        let drainSeconds = await session.drain(check, timeout: options.drainTimeout)
        if let drainSeconds { log.event(drainSeconds, "caught up: every acknowledged webhook in PostgreSQL, group lag 0") }
        sampling.cancel()
        await sampling.value

        var problems = session.sendingProblems() + log.problems
        if drainSeconds == nil { problems.append("the group did not catch up within \(options.drainTimeout)") }
        let result = try await check.run()
        let applied = try await appliedEvents(pool)
        await pool.close()

        let current = (try? StackEnvironment.load(stateDirectory: options.stateDirectory)) ?? session.stack
        let killed = log.faults.filter { $0.fault.kind == .kill && $0.failure == nil }.count
        let (readiness, unready) = await DemoSession.readiness(stack: current, client: session.sender.client, killedProjectors: killed)
        problems += unready
        var services = readiness
        if let url = current.reconcilerURLs.first {
            services += await ScaleDemo.reconcilerSummary(url: url, client: session.sender.client).lines.map { "reconciler " + $0 }
        }
        var report = ChaosReport(
            options: options, total: session.total, progress: progress, samples: sampler.all, unreadable: sampler.unreadableTimes,
            events: log.events, faults: log.faults, applied: applied, sendSeconds: sendSeconds, drainSeconds: drainSeconds,
            duplicatesAbsorbed: await DemoSession.duplicateCount(projectorURLs: current.projectorURLs, client: session.sender.client),
            checks: result, problems: problems)
        report.services = services
        FileHandle.standardOutput.write(Data((report.render() + "\n").utf8))
        guard !options.providerFaults.isEmpty else { return report.passed }
        let (lines, providerPassed) = try await ProviderChaosRun(session: session).run()
        let verdict = providerPassed ? "PROVIDER PHASE: PASS" : "PROVIDER PHASE: FAIL"
        FileHandle.standardOutput.write(Data(((lines + [verdict]).joined(separator: "\n") + "\n").utf8))
        return report.passed && providerPassed
    }

    /// This run's events as `billing_events` holds them: received and applied, in seconds since the start.
    func appliedEvents(_ pool: PostgresPool) async throws -> [AppliedEvent] {
        let origin = session.wallStart.timeIntervalSince1970
        let rows = try await pool.query(
            """
            SELECT extract(epoch FROM received_at)::float8, extract(epoch FROM applied_at)::float8
            FROM billing_events WHERE dedup_key LIKE \(session.plan.dedupKeyPattern)
            """)
        return try rows.map { row in
            let (received, applied) = try row.decode((Double, Double).self)
            return AppliedEvent(received: received - origin, applied: applied - origin)
        }
    }
}
