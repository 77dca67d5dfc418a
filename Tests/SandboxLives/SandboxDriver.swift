import Foundation
import SandboxKit
import Synchronization

/// One in-process provider sandbox on a clock the caller moves, recording
/// every webhook it sends: the provider's documented payload shapes (as the
/// sandbox's fidelity tests pin them) without a socket or a signature check.
final class SandboxDriver: Sendable {
    private let app: SandboxApp
    private let transport: RecordingWebhookTransport
    private let clock: LifeClock
    /// The custom data (Lemon Squeezy) or metadata (Paystack, Stripe) every checkout carries.
    let custom: [String: String]

    init(start: Date, custom: [String: String]) {
        let clock = LifeClock(start)
        self.clock = clock
        self.custom = custom
        let configuration = SandboxConfiguration(
            publicBaseURL: "http://127.0.0.1:8090/",
            lemonSqueezy: LemonSqueezySettings(apiKey: Self.lsKey, webhookSecret: "whsec_ls", webhookURL: "http://receiver/lemonsqueezy"),
            paystack: PaystackSettings(secretKey: Self.psKey, webhookURL: "http://receiver/paystack"),
            stripe: StripeSettings(secretKey: Self.stripeKey, webhookSecret: "whsec_stripe", webhookURL: "http://receiver/stripe"))
        // Signatures are not what these lives test: a fixed stand-in keeps the sandbox free of a crypto library.
        let signer = SandboxSigner(hmacSHA256Hex: { _, _ in "unsigned" }, hmacSHA512Hex: { _, _ in "unsigned" })
        transport = RecordingWebhookTransport(now: { clock.now })
        app = SandboxApp(
            configuration: configuration, signer: signer, transport: transport,
            clock: SandboxClock(now: { clock.now }, sleep: { _ in await Task.yield() }))
    }

    static let lsKey = "ls_test_lives", psKey = "sk_test_lives", stripeKey = "sk_test_lives_stripe"

    var now: Date { clock.now }

    /// Moves the clock on, so that each step of a life happens at its own provider time.
    func advance(hours: Double) { clock.advance(by: hours * 3600) }

    /// The webhooks sent so far, in the order the sandbox sent them.
    func sent() async -> [LifeRecord] {
        await app.settleDeliveries()
        return transport.sent
    }

    @discardableResult
    func control(_ target: String, _ body: JSONValue? = nil) async -> JSONValue? {
        await request("POST", "/_sandbox" + target, headers: [], body: body.map { JSONWriter.encode($0) } ?? [])
    }

    @discardableResult
    func lemonSqueezy(_ method: String, _ target: String, _ body: JSONValue? = nil) async -> JSONValue? {
        await request(
            method, "/lemonsqueezy/v1" + target,
            headers: [
                ("Accept", "application/vnd.api+json"), ("Content-Type", "application/vnd.api+json"), ("Authorization", "Bearer \(Self.lsKey)"),
            ],
            body: body.map { JSONWriter.encode($0) } ?? [])
    }

    @discardableResult
    func paystack(_ method: String, _ target: String, _ body: JSONValue? = nil) async -> JSONValue? {
        await request(
            method, "/paystack" + target, headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(Self.psKey)")],
            body: body.map { JSONWriter.encode($0) } ?? [])
    }

    @discardableResult
    func stripe(_ method: String, _ target: String, form: [(String, String)] = []) async -> JSONValue? {
        await request(
            method, "/stripe/v1" + target,
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Authorization", "Bearer \(Self.stripeKey)")],
            body: Array(FormDecoding.encode(form).utf8))
    }

    private func request(_ method: String, _ target: String, headers: [(String, String)], body: [UInt8]) async -> JSONValue? {
        let response = await app.handle(SandboxRequest(method: method, target: target, headers: SandboxHeaders(headers), body: body))
        precondition((200..<300).contains(response.status), "sandbox \(method) \(target) answered \(response.status): \(response.text)")
        await app.settleDeliveries()
        return response.json
    }
}

/// Keeps each webhook the sandbox sends, with the provider its URL names and the sandbox's time.
final class RecordingWebhookTransport: WebhookTransport {
    private let records = Mutex<[LifeRecord]>([])
    private let now: @Sendable () -> Date
    init(now: @escaping @Sendable () -> Date) { self.now = now }
    var sent: [LifeRecord] { records.withLock { $0 } }

    func post(url: String, headers: [(String, String)], body: [UInt8]) async throws -> Int {
        let provider = String(url.split(separator: "/").last ?? "")
        let at = now()
        records.withLock { $0.append(LifeRecord(provider: provider, body: body, sentAt: at)) }
        return 200
    }
}

/// The sandbox's time, set by the life being played.
final class LifeClock: Sendable {
    private let instant: Mutex<Date>
    init(_ start: Date) { instant = Mutex(start) }
    var now: Date { instant.withLock { $0 } }
    func advance(by seconds: TimeInterval) { instant.withLock { $0 = $0.addingTimeInterval(seconds) } }
}
