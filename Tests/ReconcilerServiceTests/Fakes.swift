import Foundation
@testable import Kafka
import BillingModel
import JSONCodec
import Providers
@testable import ReconcilerService
import Synchronization
import Telemetry
import Webhooks

/// A provider that answers from a script: per object, a list of answers used
/// in turn (the last one repeats); per list, its pages.
final class FakeSource: SnapshotSource, Sendable {
    enum Answer: Sendable {
        case body(String)
        case error(ProviderError.Kind, retryAfter: Duration? = nil)
    }

    struct Call: Sendable {
        let target: EntityRef
        let at: ContinuousClock.Instant
    }

    private struct State {
        var answers: [EntityRef: [Answer]] = [:]
        var pages: [String: [ProviderPage]] = [:]
        var calls: [Call] = []
        var pageCalls: [String] = []
        var failPages: [String: Int] = [:]
        var inFlight = 0
        var maxInFlight = 0
    }

    let providers: [Provider]
    private let state = Mutex(State())
    /// How long each fetch takes.
    let latency: Duration

    init(providers: [Provider] = Provider.allCases, latency: Duration = .zero) {
        self.providers = providers
        self.latency = latency
    }

    func answer(_ target: EntityRef, _ answers: Answer...) {
        state.withLock { $0.answers[target] = answers }
    }

    func setPages(_ provider: Provider, _ list: SweepList, _ pages: [ProviderPage]) {
        state.withLock { $0.pages["\(provider.rawValue)/\(list.rawValue)"] = pages }
    }

    /// The next `count` requests for that list's pages fail with 503.
    func failPages(_ provider: Provider, _ list: SweepList, count: Int) {
        state.withLock { $0.failPages["\(provider.rawValue)/\(list.rawValue)"] = count }
    }

    var calls: [Call] { state.withLock { $0.calls } }
    /// The most fetches that were running at once.
    var maxConcurrentFetches: Int { state.withLock { $0.maxInFlight } }
    var pageCalls: [String] { state.withLock { $0.pageCalls } }

    func fetch(_ target: EntityRef) async throws(ProviderError) -> ProviderDocument {
        let answer: Answer = state.withLock { state in
            state.calls.append(Call(target: target, at: .now))
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
            var list = state.answers[target] ?? [.error(.notFound)]
            let first = list.first ?? .error(.notFound)
            if list.count > 1 { list.removeFirst() }
            state.answers[target] = list
            return first
        }
        if latency > .zero { try? await Task.sleep(for: latency) }
        state.withLock { $0.inFlight -= 1 }
        switch answer {
        case .body(let text):
            let bytes = Array(text.utf8)
            return ProviderDocument(body: bytes, json: (try? JSONValue.parse(bytes)) ?? .null)
        case .error(let kind, let retryAfter):
            throw ProviderError(
                provider: target.provider, operation: "fetch", kind: kind, message: "scripted \(kind.rawValue)", retryAfter: retryAfter)
        }
    }

    func page(_ provider: Provider, _ list: SweepList, number: Int) async throws(ProviderError) -> ProviderPage {
        let key = "\(provider.rawValue)/\(list.rawValue)"
        let (page, fail): (ProviderPage?, Bool) = state.withLock { state in
            state.pageCalls.append("\(key)#\(number)")
            if let left = state.failPages[key], left > 0 {
                state.failPages[key] = left - 1
                return (nil, true)
            }
            let pages = state.pages[key] ?? []
            return (pages.indices.contains(number - 1) ? pages[number - 1] : nil, false)
        }
        if fail { throw ProviderError(provider: provider, operation: "page", kind: .unavailable, status: 503, message: "scripted outage") }
        return page ?? ProviderPage(number: number, items: [], hasMore: false, total: 0, pageCount: 1)
    }
}

/// Records what is published; fails the first `failures` calls.
final class FakePublisher: SnapshotPublisher, Sendable {
    private let state: Mutex<(published: [KeyedSnapshot], failures: Int, calls: Int)>

    init(failures: Int = 0) {
        state = Mutex(([], failures, 0))
    }

    var published: [KeyedSnapshot] { state.withLock { $0.published } }
    var calls: Int { state.withLock { $0.calls } }

    func publish(_ snapshots: [KeyedSnapshot]) async throws {
        try state.withLock { state in
            state.calls += 1
            if state.failures > 0 {
                state.failures -= 1
                throw FakeBrokerDown()
            }
            state.published += snapshots
        }
    }

    struct FakeBrokerDown: Error {}
}

/// Collects released ticket units.
final class TicketLog: Sendable {
    private let released = Mutex<[Int]>([])
    var all: [Int] { released.withLock { $0 } }
    func settle(_ tickets: [Int]) { released.withLock { $0 += tickets } }
    func count(_ ticket: Int) -> Int { all.filter { $0 == ticket }.count }
}

enum Fixture {
    static let logger = Logger(service: "reconciler-tests", minimumLevel: .error)

    static func configuration(
        coalesce: Duration = .milliseconds(100), retryInitial: Duration = .milliseconds(50),
        retryMax: Duration = .milliseconds(200), concurrency: Int = 4, maxPending: Int = 1000
    ) -> ReconcilerConfiguration {
        ReconcilerConfiguration(
            coalesceWindow: coalesce, commandDelay: .milliseconds(300), fetchConcurrency: concurrency,
            retryInitialDelay: retryInitial, retryMaxDelay: retryMax, maxPending: maxPending)
    }

    static func webhook(_ target: EntityRef, key: String = UUID().uuidString, receivedAt: Date = Date(), customer: String? = nil) -> ReconcileRequest
    {
        ReconcileRequest(target: target, trigger: .webhook(key, receivedAt: receivedAt), customerID: customer)
    }

    static func lsSubscriptionBody(_ id: String, status: String = "active") -> String {
        #"{"jsonapi":{"version":"1.0"},"links":{"self":"https:\/\/api.lemonsqueezy.com\/v1\/subscriptions\/\#(id)"},"data":{"type":"subscriptions","id":"\#(id)","attributes":{"status":"\#(status)","price_formatted":"\u20ac9"}}}"#
    }

    static func item(_ json: String) -> ProviderPage.Item {
        let bytes = Array(json.utf8)
        return ProviderPage.Item(raw: bytes, json: (try? JSONValue.parse(bytes)) ?? .null)
    }
}

/// A reconciler wired to fakes, its scheduler running until `stop()`.
struct RunningReconciler {
    let reconciler: Reconciler
    let tickets: TicketLog
    let metrics: ReconcilerMetrics
    let health: ProviderHealth
    let task: Task<Void, Never>

    static func start(
        _ source: FakeSource, _ publisher: FakePublisher, configuration: ReconcilerConfiguration = Fixture.configuration()
    ) -> RunningReconciler {
        let tickets = TicketLog()
        let metrics = ReconcilerMetrics(registry: MetricsRegistry())
        let health = ProviderHealth()
        let reconciler = Reconciler(
            source: source, publisher: publisher, metrics: metrics, health: health, configuration: configuration,
            logger: Fixture.logger, settle: { tickets.settle($0) })
        return RunningReconciler(reconciler: reconciler, tickets: tickets, metrics: metrics, health: health, task: Task { await reconciler.run() })
    }

    func stop() async {
        reconciler.stop()
        await task.value
    }
}

enum KafkaTestBatch {
    /// A batch as the consumer hands them out (the tracker never looks inside).
    static let empty = KafkaConsumerBatch(records: [], consumerID: 0, assignmentEpochs: [:])
}
