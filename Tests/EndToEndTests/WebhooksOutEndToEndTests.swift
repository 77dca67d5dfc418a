@testable import SeedModels
import CryptoPrimitives
import Foundation
import HTTPClient
import Postgres
import Testing

/// Webhooks out through the whole stack: a sandbox purchase, its renewal and
/// its refund go through the receiver, the projector (its outbox and relay),
/// `storefront.entitlements.v1` and the webhook-sender to an endpoint
/// registered with the CLI, which checks every signature.
@Suite(.serialized, .liveStack()) struct WebhooksOutEndToEndTests {
    var stack: LiveStack { get throws { try LiveStack.required() } }

    /// One received change, as the endpoint's JSON.
    struct Change {
        var id: String
        var type: String
        var before: NSDictionary
        var after: NSDictionary
        var firstExpiry: String? { ((after["entitlements"] as? [[String: Any]])?.first?["expires_at"]) as? String }
    }

    static func register(_ stack: LiveStack, url: String, secret: String) async throws {
        // The secret goes in on standard input, never on the command line; the receiver is on loopback.
        let input = stack.state + "/endpoint-secret-\(UUID().uuidString.prefix(6))"
        try Data((secret + "\n").utf8).write(to: URL(fileURLWithPath: input))
        try await ScriptRunner.run(
            try stack.binary("storefront"), ["endpoints", "add", "--url", url, "--secret-stdin", "--allow-private"],
            environment: ["DATABASE_URL": stack.databaseURL, "LOG_LEVEL": "error"],
            outputFile: stack.state + "/endpoint-\(UUID().uuidString.prefix(6))", inputFile: input)
    }

    /// What the endpoint accepted for `user`, in arrival order.
    static func received(_ stub: WebhookEndpointStub, user: String) throws -> [Change] {
        try stub.received.compactMap { request in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
            guard object["app_user_id"] as? String == user else { return nil }
            #expect(object["id"] as? String == request.webhookID, "webhook-id is the change's id")
            return Change(
                id: request.webhookID, type: try #require(object["type"] as? String),
                before: try #require(object["before"] as? NSDictionary), after: try #require(object["after"] as? NSDictionary))
        }
    }

    /// What the endpoint got and what the projector recorded for `user`, one
    /// line each, for a failure's message: which step of the chain stalled.
    static func timeline(_ stack: LiveStack, _ stub: WebhookEndpointStub, user: String) async -> String {
        let received = (try? Self.received(stub, user: user).map { "\($0.type) \($0.firstExpiry ?? "-")" }) ?? []
        let recorded =
            (try? await stack.withDatabase { pool in
                try await pool.query(
                    """
                    SELECT record::jsonb->>'type', coalesce(record::jsonb#>>'{after,entitlements,0,expires_at}', '-'),
                        record::jsonb#>>'{cause,kind}', published_at IS NOT NULL
                    FROM entitlement_outbox WHERE app_user_id = \(user) ORDER BY seq
                    """
                ).map { row in
                    let (type, expiry, cause, published) = try row.decode((String, String, String, Bool).self)
                    return "\(type) \(expiry) by \(cause)\(published ? "" : " (unpublished)")"
                }
            }) ?? ["(not readable)"]
        return "received: \(received); recorded: \(recorded); rejected: \(stub.rejected)"
    }

    /// ``LiveStack/eventually(timeout:_:_:)`` whose failure also records the user's ``timeline(_:_:user:)``.
    static func eventually<T>(
        _ stack: LiveStack, _ stub: WebhookEndpointStub, user: String, _ what: String, timeout: Duration = .seconds(60),
        _ probe: () async throws -> T?
    ) async throws -> T {
        do {
            return try await stack.eventually(timeout: timeout, what, probe)
        } catch {
            Issue.record("\(what): \(await timeline(stack, stub, user: user))")
            throw error
        }
    }

    /// The user's outbox rows, in the order the projector recorded them.
    static func recorded(_ stack: LiveStack, user: String) async throws -> [String] {
        try await stack.withDatabase { pool in
            try await pool.query("SELECT event_id FROM entitlement_outbox WHERE app_user_id = \(user) ORDER BY seq").map {
                try $0.decode(String.self)
            }
        }
    }

    @Test(arguments: ["lemonsqueezy", "paystack", "stripe"])
    func aPurchaseARenewalAndARefundReachTheEndpointOncePerChangeInOrder(provider: String) async throws {
        let stack = try self.stack
        let secret = try StandardWebhookSignature.generateSecret()
        let stub = try WebhookEndpointStub.start(secret: secret)
        try await Self.register(stack, url: stub.url, secret: secret)
        let flow = try await PurchaseFlow.make(stack, provider: provider)
        let user = flow.subject

        let code = try #require(try await flow.buySubscription().subscriptionCode)
        // The renewal is judged against the period the purchase paid for, the
        // newest end delivered so far (a grant's end may come in a later change).
        let paidUntil = try await Self.eventually(stack, stub, user: user, "the purchase's change delivered") {
            try Self.received(stub, user: user).last { $0.firstExpiry != nil }?.firstExpiry
        }
        try await flow.sandbox("renew", subscription: code)
        _ = try await Self.eventually(stack, stub, user: user, "the renewal's change delivered") {
            try Self.received(stub, user: user).first { $0.type == "entitlement.renewed" && ($0.firstExpiry ?? "") > paidUntil }
        }
        try await flow.sandbox("refund", subscription: code)
        _ = try await Self.eventually(stack, stub, user: user, "the refund's change delivered") {
            try Self.received(stub, user: user).first { $0.type == "entitlement.refunded" }
        }
        // Every change the projector recorded for the user arrived, once, in its order.
        let ids = try await Self.eventually(stack, stub, user: user, "every recorded change delivered") {
            let recorded = try await Self.recorded(stack, user: user)
            return try Self.received(stub, user: user).map(\.id) == recorded ? recorded : nil
        }
        let changes = try Self.received(stub, user: user)
        #expect(changes.map(\.id) == ids && Set(ids).count == ids.count)
        #expect(changes.first?.type == "entitlement.granted" && changes.last?.type == "entitlement.refunded", "\(changes.map(\.type))")
        // A chain: each change starts where the one before ended, so none is missing or repeated.
        #expect((changes.first?.before["entitlements"] as? [Any])?.isEmpty == true)
        for (earlier, later) in zip(changes, changes.dropFirst()) {
            #expect(later.before.isEqual(earlier.after), "\(later.type) does not start where \(earlier.type) ended")
        }
        #expect(stub.rejected == 0, "every request was signed with the endpoint's secret")
        await stub.stop()
    }
}

/// A projector killed between the commit of a change and its publish: the
/// first projector's relay sleeps for an hour after its first round
/// (`OUTBOX_POLL_INTERVAL`), so the purchase's change is committed and never
/// sent by it; after a SIGKILL, a fresh projector's relay (default settings)
/// sends it, and the endpoint gets it once.
@Suite(.serialized, .liveStack(["OUTBOX_POLL_INTERVAL": "1h"])) struct ProjectorCrashWebhooksOutEndToEndTests {
    var stack: LiveStack { get throws { try LiveStack.required() } }

    @Test func aChangeCommittedButNotPublishedWhenTheProjectorDiesIsSentByTheNextOne() async throws {
        let stack = try self.stack
        let secret = try StandardWebhookSignature.generateSecret()
        let stub = try WebhookEndpointStub.start(secret: secret)
        try await WebhooksOutEndToEndTests.register(stack, url: stub.url, secret: secret)
        let flow = try await PurchaseFlow.make(stack, provider: "lemonsqueezy")
        _ = try await flow.buySubscription()
        _ = try await stack.eventually(timeout: .seconds(30), "the change committed") {
            try await WebhooksOutEndToEndTests.recorded(stack, user: flow.subject).first
        }
        let (total, unpublished) = try await stack.withDatabase { pool in
            try await pool.query(
                """
                SELECT count(*), count(*) FILTER (WHERE published_at IS NULL) FROM entitlement_outbox WHERE app_user_id = \(flow.subject)
                """
            )[0].decode((Int, Int).self)
        }
        #expect(total > 0 && unpublished == total, "committed, not yet published")
        #expect(try WebhooksOutEndToEndTests.received(stub, user: flow.subject).isEmpty)

        try stack.signal(SIGKILL, to: "pids/subscription-projector-1.pid")
        try await ScriptRunner.runScript("stack.sh", ["add-projector", stack.state], outputFile: stack.state + "/add-projector.out")
        let ids = try await stack.eventually(timeout: .seconds(60), "every change sent by the next projector") {
            let received = try WebhooksOutEndToEndTests.received(stub, user: flow.subject).map(\.id)
            return try await received == WebhooksOutEndToEndTests.recorded(stack, user: flow.subject) ? received : nil
        }
        #expect(Set(ids).count == ids.count, "each change once")
        #expect(try WebhooksOutEndToEndTests.received(stub, user: flow.subject).first?.type == "entitlement.granted")
        #expect(stub.rejected == 0)
        await stub.stop()
    }
}
