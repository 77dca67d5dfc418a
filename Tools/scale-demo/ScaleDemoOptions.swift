import Foundation

/// Command-line settings of the scale demo and the chaos run; every one has
/// a default except the stack's state folder.
struct ScaleDemoOptions: Sendable {
    enum Mode: String, Sendable {
        /// `make scale-demo`: steady traffic, one projector killed midway.
        case scale
        /// `make chaos`: traffic through a sequence of faults (``faults``).
        case chaos
    }

    var mode = Mode.scale
    /// The folder `scripts/stack.sh up` wrote (`stack.env`, `pids/`, `logs/`).
    var stateDirectory = ""
    /// `scripts/stack.sh`: `add-projector` for the replacement projector,
    /// `restart-postgres` and `restart-receiver` for the chaos faults.
    var stackScript = ""
    var subscriptions = 2_000
    var eventsPerSubscription = 10
    /// Webhooks started per second (a steady pace, not a burst).
    var rate = 500.0
    /// Requests in flight at most.
    var concurrency = 64
    /// The projector killed midway (`pids/subscription-projector-N.pid`); 0 skips the failover.
    var killProjector = 2
    /// How long to wait, after the last webhook, for the group to catch up.
    var drainTimeout = Duration.seconds(120)
    var sampleInterval = Duration.milliseconds(250)
    /// A partition without commits for this long, while records wait, counts as stalled.
    var stallThreshold = Duration.milliseconds(1500)
    /// The Lemon Squeezy signing secret the stack's receivers verify with.
    var webhookSecret = "ls_sandbox_webhook_secret"
    /// How long one webhook is retried at most, from its first attempt.
    var retryDeadline = Duration.seconds(300)
    /// The delays between one webhook's attempts, as a provider spaces them
    /// (e.g. Lemon Squeezy's 5, 25, 125 s, then it gives up); nil: a steady
    /// backoff up to 2 s until `retryDeadline`.
    var retrySchedule: [Duration]?

    // Chaos only.
    /// The faults in the order they happen, each once the sender reached its share of the plan.
    var faults: [ChaosFault] = ChaosFault.defaults
    /// How long each `freeze` fault holds the broker stopped.
    var freezeSeconds = Duration.seconds(30)
    /// The receiver the `receiver` fault restarts (`pids/webhook-receiver-N.pid`).
    var restartReceiver = 1
    /// Longest wait, after a fault ended, for the stack to recover before the next fault.
    var recoveryTimeout = Duration.seconds(180)
    /// How long the lag must stay low, with the group committing, to count as recovered.
    var settle = Duration.seconds(3)

    // Chaos, provider phase (``ProviderChaosRun``).
    /// Its faults in order; empty skips the phase.
    var providerFaults: [ProviderFault] = ProviderFault.defaults
    /// Sandbox purchases started per second during the phase.
    var providerRate = 5.0
    /// Purchases before each fault begins.
    var providerLead = Duration.seconds(15)
    /// Lemon Squeezy purchases bought at once, before the faults, to time the sandbox's deliveries (0: none).
    var providerProbe = 200
    /// How long the `outage` fault keeps the broker down: longer than Lemon
    /// Squeezy's retries (5 + 25 + 125 s at the sandbox's time scale 1).
    var outageSeconds = Duration.seconds(170)
    /// How long the `blackhole` fault holds PostgreSQL's traffic.
    var blackholeSeconds = Duration.seconds(30)
    /// How many subscriptions the `race` fault cancels and resumes at once.
    var raceSubscriptions = 20

    static let usage = """
        usage: scale-demo --state-dir DIR --stack-script PATH [--mode scale|chaos] [--subscriptions N]
                          [--events-per-subscription N] [--rate PER_SECOND] [--concurrency N]
                          [--kill-projector N (0: none)] [--drain-timeout SECONDS] [--retry-deadline SECONDS]
                          [--sample-interval SECONDS] [--stall-threshold SECONDS]
                          [--retry-schedule SECONDS,SECONDS,...|steady]
               chaos only: [--faults KIND@FRACTION,...] [--freeze-seconds SECONDS] [--restart-receiver N]
                          [--recovery-timeout SECONDS] [--settle-seconds SECONDS]
                          [--provider-faults KIND,...|none] [--provider-rate PER_SECOND] [--provider-lead SECONDS]
                          [--provider-probe N] [--outage-seconds SECONDS] [--blackhole-seconds SECONDS]
                          [--race-subscriptions N]
        Fault kinds: freeze (SIGSTOP the broker for --freeze-seconds, then SIGCONT), kill (SIGKILL
        projector --kill-projector and start a replacement), postgres (restart the cluster),
        receiver (SIGTERM receiver --restart-receiver and start it again on its port). Each starts
        once that fraction of the webhooks was started and the previous fault recovered; default
        \(ChaosFault.describe(ChaosFault.defaults)).
        Then the provider phase: sandbox purchases of both providers through provider faults,
        in order: brokerkill (SIGKILL the broker, start it empty on its port), outage (the same,
        down for --outage-seconds), blackhole (the PostgreSQL proxy stops forwarding for
        --blackhole-seconds), race (--race-subscriptions cancelled and resumed at once while
        a projector is SIGKILLed and replaced), commandrace (--race-subscriptions bought, cancelled and
        resumed through Storefront's API at once while a projector is SIGKILLed and replaced: the
        checkout's commands race the webhooks), snapshotfirst (a purchase's webhooks held back until
        the sweep's snapshot is projected, another user's checkout for the same email); default \(ProviderFault.describe(ProviderFault.defaults)).
        The webhook secret comes from LEMONSQUEEZY_WEBHOOK_SECRET (default: the sandbox's).
        """

    struct Invalid: Error, CustomStringConvertible { let description: String }

    /// Parses `arguments` (without the program name).
    /// - Throws: ``Invalid`` naming the bad argument.
    static func parse(_ arguments: [String], environment: [String: String]) throws -> ScaleDemoOptions {
        var options = ScaleDemoOptions()
        if let secret = environment["LEMONSQUEEZY_WEBHOOK_SECRET"], !secret.isEmpty { options.webhookSecret = secret }
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { throw Invalid(description: "\(flag) needs a value\n\(usage)") }
            func int(_ range: ClosedRange<Int>) throws -> Int {
                guard let number = Int(value), range.contains(number) else {
                    throw Invalid(description: "\(flag) must be a whole number in \(range.lowerBound)...\(range.upperBound), got \(value)")
                }
                return number
            }
            func seconds(_ range: ClosedRange<Double>) throws -> Duration {
                guard let number = Double(value), range.contains(number) else {
                    throw Invalid(description: "\(flag) must be seconds in \(range.lowerBound)...\(range.upperBound), got \(value)")
                }
                return .milliseconds(Int64(number * 1000))
            }
            switch flag {
            case "--state-dir": options.stateDirectory = value
            case "--stack-script": options.stackScript = value
            case "--subscriptions": options.subscriptions = try int(1...100_000)
            case "--events-per-subscription": options.eventsPerSubscription = try int(1...100)
            case "--rate":
                guard let rate = Double(value), (1...20_000).contains(rate) else {
                    throw Invalid(description: "--rate must be 1...20000 per second, got \(value)")
                }
                options.rate = rate
            case "--concurrency": options.concurrency = try int(1...1_000)
            case "--kill-projector": options.killProjector = try int(0...64)
            case "--drain-timeout": options.drainTimeout = try seconds(1...3_600)
            case "--sample-interval": options.sampleInterval = try seconds(0.05...10)
            case "--stall-threshold": options.stallThreshold = try seconds(0.2...60)
            case "--retry-deadline": options.retryDeadline = try seconds(1...3_600)
            case "--retry-schedule":
                if value == "steady" {
                    options.retrySchedule = nil
                    continue
                }
                let delays = value.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
                guard !delays.isEmpty, delays.allSatisfy({ $0.map { (0...3_600).contains($0) } ?? false }) else {
                    throw Invalid(description: "--retry-schedule must be steady or seconds separated by commas, got \(value)")
                }
                options.retrySchedule = delays.compactMap { $0 }.map { .milliseconds(Int64($0 * 1000)) }
            case "--mode":
                guard let mode = Mode(rawValue: value) else { throw Invalid(description: "--mode must be scale or chaos, got \(value)") }
                options.mode = mode
            case "--faults":
                do { options.faults = try ChaosFault.parse(value) } catch { throw Invalid(description: "--faults: \(error)") }
            case "--freeze-seconds": options.freezeSeconds = try seconds(0.1...600)
            case "--restart-receiver": options.restartReceiver = try int(1...64)
            case "--recovery-timeout": options.recoveryTimeout = try seconds(1...3_600)
            case "--settle-seconds": options.settle = try seconds(0...60)
            case "--provider-faults":
                do { options.providerFaults = try ProviderFault.parse(value) } catch { throw Invalid(description: "--provider-faults: \(error)") }
            case "--provider-rate":
                guard let rate = Double(value), (0.1...200).contains(rate) else {
                    throw Invalid(description: "--provider-rate must be 0.1...200 per second, got \(value)")
                }
                options.providerRate = rate
            case "--provider-lead": options.providerLead = try seconds(0...600)
            case "--provider-probe": options.providerProbe = try int(0...10_000)
            case "--outage-seconds": options.outageSeconds = try seconds(0...3_600)
            case "--blackhole-seconds": options.blackholeSeconds = try seconds(0.1...600)
            case "--race-subscriptions": options.raceSubscriptions = try int(1...1_000)
            default: throw Invalid(description: "unknown argument \(flag)\n\(usage)")
            }
        }
        guard !options.stateDirectory.isEmpty else { throw Invalid(description: "--state-dir is required\n\(usage)") }
        if options.killProjector > 0 || options.mode == .chaos, options.stackScript.isEmpty {
            throw Invalid(description: "--stack-script is required to start the replacement projector and for chaos faults\n\(usage)")
        }
        if options.mode == .chaos, options.killProjector == 0, options.faults.contains(where: { $0.kind == .kill }) {
            throw Invalid(description: "--faults has a kill but --kill-projector is 0")
        }
        return options
    }
}
