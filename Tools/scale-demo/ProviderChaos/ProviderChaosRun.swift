import Timing
import Foundation
import Postgres

/// The provider phase of `make chaos`, after the webhook phase on the same
/// stack: subscriptions bought in the provider sandbox (both providers; the
/// sandbox signs and delivers their webhooks on each provider's own retry
/// schedule and lists them for the reconciler's sweep) while the
/// ``ProviderFault``s happen one after another. After each fault it waits
/// until every purchase made before the fault ended is in PostgreSQL in the
/// sandbox's status (its recovery time); at the end every purchase must be:
/// none lost, no payment applied twice.
struct ProviderChaosRun {
    let session: DemoSession

    func run() async throws -> (lines: [String], passed: Bool) {
        let options = session.options, stack = session.stack
        guard let sandboxURL = stack["SANDBOX_URL"] else { throw StackEnvironment.Missing(description: "stack.env has no SANDBOX_URL") }
        let brokerPort = stack["KAFKA_PORT"] ?? String((stack["KAFKA_BROKERS"] ?? "").split(separator: ":").last ?? "")
        let control = SandboxControl(baseURL: sandboxURL)
        let actions = ProviderFaultActions(stateDirectory: options.stateDirectory, stackScript: options.stackScript)
        // The superuser's direct URL: the check must see PostgreSQL while the services' proxy is a black hole.
        let pool = PostgresPool(configuration: try PostgresConfiguration(url: stack["DATABASE_URL"] ?? ""))
        do {
            let outcome = try await run(pool: pool, control: control, actions: actions, brokerPort: brokerPort)
            await pool.close()
            return outcome
        } catch {
            await pool.close()
            throw error
        }
    }

    private func run(
        pool: PostgresPool, control: SandboxControl, actions: ProviderFaultActions, brokerPort: String
    ) async throws -> (lines: [String], passed: Bool) {
        let options = session.options
        let check = PurchaseCheck(pool: pool)
        let ledger = PurchaseLedger()
        var lines = ["provider phase: subscriptions bought in the sandbox, webhooks on the providers' own retry schedules"]
        var problems: [String] = []
        func say(_ text: String) {
            DemoSession.say(String(format: "%7.1f s  ", session.now()) + text)
        }

        lines.append(try await deliveryRate(control, ledger))
        say(
            "provider phase: buying \(String(format: "%g", options.providerRate)) subscriptions/s; faults \(ProviderFault.describe(options.providerFaults))"
        )
        let driver = PurchaseDriver(control: control, ledger: ledger, rate: options.providerRate, now: { session.now() })
        let driving = Task { await driver.run() }

        var windowStart = session.now()
        for (number, fault) in options.providerFaults.enumerated() {
            try? await Task.sleep(for: options.providerLead)
            let start = session.now()
            let title: String
            do {
                title = try await perform(
                    fault, actions: actions, control: control, ledger: ledger, pool: pool, brokerPort: brokerPort, say: say)
            } catch {
                problems.append("provider fault \(number + 1) (\(fault.kind.rawValue)) failed: \(error)")
                say("provider fault \(number + 1) failed: \(error)")
                continue
            }
            let end = session.now()
            let recovered = await waitUntilProjected(check, ledger, madeBy: end, timeout: options.recoveryTimeout)
            // This fault's share: the purchases made since the previous fault ended, up to this one's end.
            let window = ledger.purchases.filter { $0.createdAt > windowStart && $0.createdAt <= end }
            let during = window.filter { $0.createdAt >= start }.count
            let result = try? await check.run(window)
            var line =
                "  \(number + 1). \(title): \(fmt(start))–\(fmt(end)) s; \(window.count) purchases (\(during) during it): "
                + "lost \(result.map { String($0.lost.count) } ?? "?"), applied twice \(result.map { String($0.appliedTwice.count) } ?? "?"); "
            if let recovered {
                line += "every purchase made by its end projected \(fmt(recovered - end)) s after it ended"
            } else {
                line += "NOT every purchase made by its end projected within \(options.recoveryTimeout)"
                problems.append("provider fault \(number + 1) (\(title)): not recovered within \(options.recoveryTimeout)")
            }
            say(line.trimmingCharacters(in: .whitespaces))
            lines.append(line)
            windowStart = end
        }
        driver.stop()
        await driving.value

        let total = ledger.purchases.count
        let drained = await waitUntilProjected(check, ledger, madeBy: .infinity, timeout: options.drainTimeout)
        let result = try await check.run(ledger.purchases)
        lines.append(
            "  purchases: \(total) (\(ledger.purchases.filter { $0.provider == .lemonSqueezy }.count) Lemon Squeezy, "
                + "\(ledger.purchases.filter { $0.provider == .paystack }.count) Paystack); "
                + (drained.map { "all projected at \(fmt($0)) s" } ?? "NOT all projected within \(options.drainTimeout)"))
        lines.append("  lost: \(result.lost.count), applied twice: \(result.appliedTwice.count)")
        if let outcomes = try? await control.deliveryOutcomes() {
            lines.append("  the sandbox's deliveries (its newest 5,000 attempts): \(outcomes)")
        }
        for text in (result.lost + result.appliedTwice).prefix(5) { lines.append("    e.g. \(text)") }
        if ledger.failureCount > 0 {
            problems.append("\(ledger.failureCount) sandbox purchases or cancels failed, e.g. \(ledger.failures.first ?? "")")
        }
        if !result.complete { problems.append("provider phase: \(result.lost.count) lost, \(result.appliedTwice.count) applied twice") }
        for problem in problems { lines.append("  [FAIL] \(problem)") }
        return (lines, problems.isEmpty && total > 0)
    }

    private func perform(
        _ fault: ProviderFault, actions: ProviderFaultActions, control: SandboxControl, ledger: PurchaseLedger, pool: PostgresPool,
        brokerPort: String, say: (String) -> Void
    ) async throws -> String {
        let options = session.options
        switch fault.kind {
        case .brokerkill, .outage:
            let down = fault.kind == .outage ? options.outageSeconds : .zero
            let pid = try await actions.killBroker()
            say("provider fault: SIGKILL broker (tansu, pid \(pid)); everything it held is gone")
            if down > .zero { try? await Task.sleep(for: down) }
            try await actions.startBroker(port: brokerPort)
            say("provider fault: an empty broker started on port \(brokerPort)")
            return fault.kind == .outage
                ? "broker killed and down \(fmt(down.inSeconds)) s (longer than Lemon Squeezy's retries), then restarted empty"
                : "broker killed and restarted empty on the same port"
        case .race:
            say("provider fault: cancelling and resuming subscriptions at once while a projector is SIGKILLed")
            return try await RaceFault(
                control: control, ledger: ledger, stateDirectory: options.stateDirectory, stackScript: options.stackScript,
                count: options.raceSubscriptions, now: { session.now() }
            ).run()
        case .commandrace:
            say("provider fault: buying through the API, then cancelling and resuming through it at once while a projector is SIGKILLed")
            return try await CommandRaceFault(
                control: control, api: StorefrontAPI(client: control.client, stack: session.stack), ledger: ledger, pool: pool,
                stateDirectory: options.stateDirectory, stackScript: options.stackScript, count: options.raceSubscriptions,
                timeout: options.recoveryTimeout, now: { session.now() }
            ).run()
        case .snapshotfirst:
            say("provider fault: a purchase's webhooks held back until its snapshot is projected; a competing checkout")
            return try await SnapshotFirstFault(
                control: control, ledger: ledger, pool: pool, stack: session.stack, timeout: options.recoveryTimeout, now: { session.now() }
            ).run()
        case .blackhole:
            try actions.blackHole(true)
            say("provider fault: PostgreSQL proxy stops forwarding (sockets kept open)")
            let clock = ContinuousClock()
            let until = clock.now + options.blackholeSeconds
            // Not cancellable: the proxy must forward again whatever happens.
            while clock.now < until { try? await Task.sleep(until: until, clock: clock) }
            try actions.blackHole(false)
            say("provider fault: PostgreSQL proxy forwards again")
            return "PostgreSQL black hole for \(fmt(options.blackholeSeconds.inSeconds)) s"
        }
    }

    /// Polls until every purchase made by `time` is projected; returns when (seconds since the start), or nil.
    private func waitUntilProjected(_ check: PurchaseCheck, _ ledger: PurchaseLedger, madeBy time: Double, timeout: Duration) async -> Double? {
        let clock = ContinuousClock()
        let started = clock.now
        let deadline = started + timeout
        // Said once after a while, and again at the deadline: which purchases the wait is for,
        // so a slow or failed recovery names what to look for in the stack's logs.
        var nextReport = started + .seconds(30)
        var latest: PurchaseCheck.Result?
        while clock.now < deadline {
            let due = ledger.purchases.filter { $0.createdAt <= time }
            if let result = try? await check.run(due) {
                if result.complete { return session.now() }
                latest = result
            }
            if clock.now >= nextReport, let latest {
                reportWaiting(latest, since: started, clock: clock)
                nextReport = deadline
            }
            try? await Task.sleep(for: .seconds(1))
        }
        if let latest { reportWaiting(latest, since: started, clock: clock) }
        return nil
    }

    private func reportWaiting(_ result: PurchaseCheck.Result, since started: ContinuousClock.Instant, clock: ContinuousClock) {
        let waiting = result.lost + result.appliedTwice
        let examples = waiting.prefix(5).joined(separator: "; ")
        DemoSession.say(
            "  still waiting after \(fmt((clock.now - started).inSeconds)) s for \(waiting.count) purchase(s), e.g. \(examples)")
    }

    /// The sandbox's delivery rate on a healthy stack: a batch of Lemon
    /// Squeezy purchases with their webhooks, timed until every one was
    /// delivered. The purchases join the ledger (their ids are consecutive).
    private func deliveryRate(_ control: SandboxControl, _ ledger: PurchaseLedger) async throws -> String {
        let count = session.options.providerProbe
        guard count > 0 else { return "  sandbox delivery rate: not measured (--provider-probe 0)" }
        let clock = ContinuousClock()
        let before = try await control.deliveredCount()
        let started = clock.now
        let (first, last, webhooks) = try await control.seedBatch(count)
        // Not the sandbox's settle: a failed attempt would hold it for the whole retry schedule.
        let deadline = started + .seconds(120)
        while try await control.deliveredCount() - before < webhooks, clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(100))
        }
        let seconds = (clock.now - started).inSeconds
        let delivered = try await control.deliveredCount() - before
        let time = session.now()
        for id in first...last {
            ledger.bought(Purchase(provider: .lemonSqueezy, id: String(id), createdAt: time, status: "active", changedAt: time))
        }
        return "  sandbox delivery rate: \(delivered) of the \(webhooks) webhooks of \(count) Lemon Squeezy purchases delivered in \(fmt(seconds)) s "
            + "(\(Int(Double(delivered) / max(seconds, 0.001)))/s, one delivery at a time, as the sandbox sends them)"
    }

    private func fmt(_ value: Double) -> String { String(format: "%.1f", value) }
}
