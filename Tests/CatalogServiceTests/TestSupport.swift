import Catalog
import CatalogService
import Foundation
import HTTPServer
import BillingModel
import Synchronization
import Telemetry
import TestSupport

/// A test double for a payment provider's catalog API: returns what the test
/// sets, counts fetches, and can hold fetches at a gate.
final class FakeCatalogSource: CatalogSource {
    struct Failure: Error, CustomStringConvertible {
        var description: String { "provider unavailable (fake)" }
    }

    struct State {
        var result: Result<[CatalogItem], Failure>
        var fetchCount = 0
        var gate: Gate?
        var cancelledFetches = 0
    }

    let provider: Provider
    private let state: Mutex<State>

    init(_ provider: Provider, items: [CatalogItem]) {
        self.provider = provider
        state = Mutex(State(result: .success(items)))
    }

    /// A source whose fetches fail until ``set(items:)``.
    init(failing provider: Provider) {
        self.provider = provider
        state = Mutex(State(result: .failure(Failure())))
    }

    func set(items: [CatalogItem]) { state.withLock { $0.result = .success(items) } }
    func fail() { state.withLock { $0.result = .failure(Failure()) } }
    /// Later fetches wait at `gate` until it opens.
    func hold(at gate: Gate?) { state.withLock { $0.gate = gate } }
    var fetchCount: Int { state.withLock { $0.fetchCount } }
    /// Fetches that found their task cancelled after the gate.
    var cancelledFetches: Int { state.withLock { $0.cancelledFetches } }

    func fetchCatalog() async throws -> [CatalogItem] {
        let (result, gate) = state.withLock { state in
            state.fetchCount += 1
            return (state.result, state.gate)
        }
        if let gate { await gate.pass() }
        if Task.isCancelled {
            state.withLock { $0.cancelledFetches += 1 }
            throw CancellationError()
        }
        return try result.get()
    }
}

/// A one-shot barrier: ``pass()`` waits until ``open()``.
final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var arrivals = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    func pass() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let proceed = state.withLock { state -> Bool in
                state.arrivals += 1
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if proceed { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    var arrivals: Int { state.withLock { $0.arrivals } }
}

/// Time that moves only when the test says so.
final class ManualClock: Sendable {
    private let seconds = Mutex<Double>(1_000)
    var clock: CatalogClock { CatalogClock { self.seconds.withLock { $0 } } }
    func advance(by delta: Double) { seconds.withLock { $0 += delta } }
}

let quietLogger = Logger(service: "catalog-test", sink: CapturingLogSink())

func makeItem(
    _ provider: Provider, product: String, variant: String, name: String, price: Int64 = 999,
    currency: String = "USD", interval: BillingInterval? = nil
) -> CatalogItem {
    CatalogItem(
        provider: provider, productID: product, variantID: variant, name: name,
        descriptionHTML: "<p>\(name)</p>", price: price, currency: currency,
        interval: interval, buyNowURL: provider == .lemonsqueezy ? "https://store.example/buy/\(variant)" : nil)
}

/// A Lemon Squeezy product with monthly and yearly variants, a one-time
/// Lemon Squeezy product, and one Paystack plan.
let lemonItems = [
    makeItem(.lemonsqueezy, product: "10", variant: "101", name: "Pro monthly", price: 999, interval: BillingInterval(unit: .month, count: 1)),
    makeItem(.lemonsqueezy, product: "10", variant: "102", name: "Pro yearly", price: 9_900, interval: BillingInterval(unit: .year, count: 1)),
    makeItem(.lemonsqueezy, product: "20", variant: "201", name: "Icon pack", price: 299),
]
let paystackItems = [
    makeItem(
        .paystack, product: "PLN_abc", variant: "PLN_abc", name: "Basic", price: 500_000, currency: "NGN",
        interval: BillingInterval(unit: .month, count: 1))
]

/// Builds the application the executable builds, with fakes and a manual clock.
func makeApp(
    _ sources: [any CatalogSource], clock: ManualClock = ManualClock(),
    configuration: CatalogConfiguration = CatalogConfiguration(),
    metrics: MetricsRegistry = MetricsRegistry()
) throws -> CatalogApplication {
    try buildCatalogApplication(
        sources: sources, configuration: configuration, logger: quietLogger,
        metrics: metrics, clock: clock.clock)
}

extension CatalogApplication {
    /// A GET through the router, no socket.
    func get(_ target: String, headers: HTTPHeaders = HTTPHeaders()) async throws -> HTTPResponse {
        await respond(to: try HTTPRequest(method: .get, target: target, headers: headers), logger: quietLogger)
    }
}

extension HTTPResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try JSONDecoder().decode(type, from: Data(body)) }
}

/// Loopback on an ephemeral port (kept here so files using HTTPClient need
/// not import HTTPServer, whose `HTTPHeaders` has the same name).
func loopbackHTTPConfiguration() -> HTTPServerConfiguration {
    var http = HTTPServerConfiguration()
    http.bindAddress = "127.0.0.1"
    http.port = 0
    return http
}
