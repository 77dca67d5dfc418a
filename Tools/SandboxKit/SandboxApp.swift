import Foundation

/// The provider sandbox: one handler for every route of the emulated
/// providers, their hosted checkout pages and the `/_sandbox` controls.
///
/// Mount ``handle(_:)`` on a catch-all route. Webhooks produced by a request
/// are queued before its response is returned and delivered in the background
/// through the injected ``WebhookTransport``.
public final class SandboxApp: Sendable {
    private let context: SandboxContext
    private let store: SandboxStore
    private let dispatcher: WebhookDispatcher
    private let lemonSqueezy: LemonSqueezyAPI
    private let paystack: PaystackAPI
    private let stripe: StripeAPI
    private let apple: AppleExternalPurchaseAPI
    private let checkout: HostedCheckoutRoutes
    private let control: SandboxControlRoutes
    private let gate = APIGate()

    /// - Parameters:
    ///   - configuration: keys, webhook URLs, public URL, rate limit, retry scaling.
    ///   - catalog: ``SandboxCatalog/standard`` or one from ``SandboxCatalog/load(path:)``.
    ///   - signer: HMAC functions for the signature headers.
    ///   - transport: sends webhook requests.
    ///   - clock: time source for timestamps and the sleeper for retries.
    public init(
        configuration: SandboxConfiguration, catalog: SandboxCatalog = .standard, signer: SandboxSigner, transport: any WebhookTransport,
        clock: SandboxClock = .system
    ) {
        context = SandboxContext(configuration: configuration, catalog: catalog, signer: signer, clock: clock)
        store = SandboxStore(catalog: catalog)
        dispatcher = WebhookDispatcher(transport: transport, clock: clock, configuration: configuration)
        let limiter = configuration.rateLimit.map(RateLimiter.init(settings:))
        lemonSqueezy = LemonSqueezyAPI(context: context, store: store, rateLimiter: limiter)
        paystack = PaystackAPI(context: context, store: store, rateLimiter: limiter)
        stripe = StripeAPI(context: context, store: store, rateLimiter: limiter)
        apple = AppleExternalPurchaseAPI(context: context)
        checkout = HostedCheckoutRoutes(context: context, store: store)
        control = SandboxControlRoutes(context: context, store: store, dispatcher: dispatcher, checkout: checkout, gate: gate)
    }

    /// Answers one request; never throws (errors are responses in the provider's format).
    public func handle(_ request: SandboxRequest) async -> SandboxResponse {
        let path = request.path
        let result: HandlerResult
        let isAPIWrite =
            request.method != "GET" && request.method != "HEAD"
            && (Self.strip("/lemonsqueezy/v1", from: path) != nil || Self.strip("/paystack", from: path) != nil
                || Self.strip("/stripe/v1", from: path) != nil)
        if let rest = Self.strip("/lemonsqueezy/v1", from: path) {
            if let refusal = gate.admit(.lemonSqueezy, method: request.method, path: rest, now: context.clock.now()) {
                result = HandlerResult(LemonSqueezyErrors.rateLimited(retryAfter: refusal.retryAfter, limit: refusal.limit))
            } else {
                result = lemonSqueezy.handle(request, path: rest)
            }
        } else if let rest = Self.strip("/paystack", from: path) {
            if let refusal = gate.admit(.paystack, method: request.method, path: rest, now: context.clock.now()) {
                result = HandlerResult(PaystackErrors.rateLimited(retryAfter: refusal.retryAfter))
            } else {
                result = paystack.handle(request, path: rest)
            }
        } else if let rest = Self.strip("/stripe/v1", from: path) {
            if let refusal = gate.admit(.stripe, method: request.method, path: rest, now: context.clock.now()) {
                result = HandlerResult(StripeErrors.rateLimited(retryAfter: refusal.retryAfter))
            } else {
                result = stripe.handle(request, path: rest)
            }
        } else if let rest = Self.strip("/externalPurchase/v1", from: path) {
            result = HandlerResult(apple.handle(request, path: rest))
        } else if let rest = Self.strip("/_sandbox/apple/external-purchase", from: path),
            let answer = apple.control(request, path: rest, body: JSONValue.parse(request.body) ?? [:])
        {
            result = answer
        } else if path.hasPrefix("/checkout/") || path.hasPrefix("/manage/") {
            result = checkout.handle(request)
        } else if let rest = Self.strip("/_sandbox", from: path) {
            result = await control.handle(request, path: rest)
        } else {
            result = HandlerResult(
                .json(
                    404,
                    [
                        "error": .string("not found: \(path)"),
                        "hint": "routes live under /lemonsqueezy/v1, /paystack, /stripe/v1, /externalPurchase/v1, /checkout and /_sandbox",
                    ]))
        }
        if !result.events.isEmpty { await dispatcher.enqueue(result.events.map(prepare)) }
        if isAPIWrite, case let delay = gate.faults.answerDelayMilliseconds, delay > 0 {
            try? await Task.sleep(for: .milliseconds(delay))
        }
        return result.response
    }

    /// Waits until every queued webhook was delivered or gave up (retries included).
    public func settleDeliveries() async { await dispatcher.settle() }

    /// The attempt log, oldest first, optionally filtered.
    public func deliveries(provider: SandboxProvider? = nil, event: String? = nil) async -> [DeliveryAttempt] {
        await dispatcher.log(provider: provider, event: event)
    }

    /// Replaces the delivery faults (see ``DeliveryFaults``).
    public func setFaults(_ faults: DeliveryFaults) async { await dispatcher.setFaults(faults) }

    /// Replaces the API faults (see ``APIFaults``).
    public func setAPIFaults(_ faults: APIFaults) { gate.setFaults(faults) }

    /// Encodes and signs a webhook as its provider does.
    private func prepare(_ event: OutgoingWebhook) -> PreparedDelivery {
        let settings = context.configuration
        let subjects = store.read { DeliverySubjects.of(event, state: $0) }
        switch event.provider {
        case .lemonSqueezy:
            let body = JSONWriter.encode(event.payload, dialect: .php)
            let signature = context.signer.hmacSHA256Hex(Array(settings.lemonSqueezy.webhookSecret.utf8), body)
            return PreparedDelivery(
                id: 0, provider: .lemonSqueezy, eventName: event.eventName, url: settings.lemonSqueezy.webhookURL,
                headers: [("Content-Type", "application/json"), ("X-Event-Name", event.eventName), ("X-Signature", signature)],
                body: body, subjects: subjects)
        case .paystack:
            let body = JSONWriter.encode(event.payload, dialect: .node)
            let signature = context.signer.hmacSHA512Hex(Array(settings.paystack.secretKey.utf8), body)
            return PreparedDelivery(
                id: 0, provider: .paystack, eventName: event.eventName, url: settings.paystack.webhookURL,
                headers: [("Content-Type", "application/json"), ("x-paystack-signature", signature)],
                body: body, subjects: subjects)
        case .stripe:
            let body = JSONWriter.encode(event.payload, dialect: .node)
            let (secret, signer) = (settings.stripe.webhookSecret, context.signer)
            let sign: @Sendable (Date) -> [(String, String)] = { time in
                [
                    ("Content-Type", "application/json; charset=utf-8"),
                    ("Stripe-Signature", StripeWebhooks.signature(body: body, at: time, secret: secret, signer: signer)),
                ]
            }
            return PreparedDelivery(
                id: 0, provider: .stripe, eventName: event.eventName, url: settings.stripe.webhookURL, headers: sign(context.clock.now()),
                body: body, subjects: subjects, signedHeaders: sign)
        }
    }

    /// `path` without `prefix` ("" for the prefix itself), or nil when it does not start with it.
    private static func strip(_ prefix: String, from path: String) -> String? {
        guard path == prefix || path.hasPrefix(prefix + "/") else { return nil }
        return String(path.dropFirst(prefix.count))
    }
}
