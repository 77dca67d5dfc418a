@testable import CheckoutService
import BillingModel
import Foundation
import HTTPServer
import ProjectionStore
import Providers
import Synchronization
import Telemetry
import Testing

/// The refund's rules with no server, database or provider: a projection
/// lookup, idempotency records and a provider in memory.
@Suite struct RefundCommanderTests {
    /// A provider whose refund answers what the test says and counts its calls.
    final class FakeProvider: UnusedProviderCalls {
        let provider: Provider
        let answer: Result<ProviderRefund, ProviderError>
        let calls = Mutex<[RefundRequest]>([])

        init(_ provider: Provider = .stripe, answer: Result<ProviderRefund, ProviderError>) {
            self.provider = provider
            self.answer = answer
        }

        func refund(_ request: RefundRequest) async throws(ProviderError) -> ProviderRefund {
            calls.withLock { $0.append(request) }
            return try answer.get()
        }
    }

    /// The projection: purchases by (provider, type, id), each with its owner.
    struct FakeLookup: RefundablePaymentLookup {
        var payments: [String: (owner: String, payment: RefundablePayment)]
        func refundablePayment(provider: Provider, type: PurchaseType, id: String, ownedBy appUserID: String) async throws -> RefundablePayment? {
            guard let found = payments["\(provider.rawValue):\(type.rawValue):\(id)"], found.owner == appUserID else { return nil }
            return found.payment
        }
    }

    /// ``IdempotencyStore``'s contract in memory: pending, then completed with the stored answer.
    final class MemoryIdempotency: RefundIdempotency {
        let records = Mutex<[String: (hash: String, response: String?)]>([:])
        func begin(user: String, key: String, requestHash: String, checkoutID owner: String) async throws -> IdempotencyStore.Claim {
            records.withLock { records in
                guard let found = records[user + "|" + key] else {
                    records[user + "|" + key] = (requestHash, nil)
                    return .acquired
                }
                guard found.hash == requestHash else { return .mismatch }
                return found.response.map { .replay($0) } ?? .inProgress
            }
        }
        func complete(user: String, key: String, response: String) async throws {
            records.withLock { $0[user + "|" + key]?.response = response }
        }
        func release(user: String, key: String, checkoutID owner: String) async {
            records.withLock { _ = $0.removeValue(forKey: user + "|" + key) }
        }
    }

    /// Every command published, decoded.
    final class CommandLog: RecordPublisher {
        let commands = Mutex<[SubscriptionCommand]>([])
        func publish(topic: String, key: String, value: [UInt8]) async throws {
            #expect(topic == Topics.commands)
            let command = try JSONDecoder().decode(SubscriptionCommand.self, from: Data(value))
            commands.withLock { $0.append(command) }
        }
        /// Waits for a record published from a background task.
        func waitFor(_ count: Int) async -> [SubscriptionCommand] {
            for _ in 0..<200 {
                let now = commands.withLock { $0 }
                if now.count >= count { return now }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return commands.withLock { $0 }
        }
    }

    static let caller = ServerCaller(keyID: "key123", name: "support", scopes: [.purchasesRefund])
    static let logger = Logger(service: "refund-tests", minimumLevel: .critical)
    static let paid = RefundablePayment(
        provider: .stripe, purchaseType: .subscription, purchaseID: "sub_1", paymentID: "in_9", paid: 1000, refunded: 0, currency: "usd",
        alreadyRefunded: false)

    struct Setup {
        let commander: RefundCommander
        let provider: FakeProvider
        let log: CommandLog
    }

    static func setup(
        answer: Result<ProviderRefund, ProviderError> = .success(
            ProviderRefund(provider: .stripe, id: "re_1", status: "succeeded", amount: 500, currency: "usd")),
        payment: RefundablePayment = paid, owner: String = "user-1", enabled: Bool = true
    ) -> Setup {
        let provider = FakeProvider(answer: answer)
        let log = CommandLog()
        let commander = RefundCommander(
            lookup: FakeLookup(payments: ["stripe:\(payment.purchaseType.rawValue):\(payment.purchaseID)": (owner, payment)]),
            registry: ProviderRegistry(providers: enabled ? [provider] : []), idempotency: MemoryIdempotency(), publisher: log,
            metrics: CheckoutMetrics(registry: MetricsRegistry()), now: { Date(timeIntervalSince1970: 1_800_000_000) })
        return Setup(commander: commander, provider: provider, log: log)
    }

    static func body(type: String = "subscription", id: String = "sub_1", amount: Int64? = 500) -> RefundRequestBody {
        RefundRequestBody(purchase: .init(provider: "stripe", type: type, id: id), amount: amount)
    }

    static func refusal(_ call: () async throws -> Void) async -> HTTPError? {
        do {
            try await call()
            return nil
        } catch let error as HTTPError {
            return error
        } catch {
            return HTTPError(.internalServerError, "\(error)")
        }
    }

    static func json(_ bytes: [UInt8]) -> [String: Any] {
        ((try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]) ?? [:]
    }

    @Test func anAcceptedRefundAnswersThePaymentAndIsAuditedWithTheKey() async throws {
        let s = Self.setup()
        let outcome = try await s.commander.refund(Self.body(), appUserID: "user-1", caller: Self.caller, idempotencyKey: "k1", logger: Self.logger)
        #expect(outcome.status == .ok && !outcome.replayed)
        let answer = Self.json(outcome.body)
        #expect(answer["payment_id"] as? String == "in_9")
        #expect((answer["refund"] as? [String: Any])?["id"] as? String == "re_1")
        let sent = try #require(s.provider.calls.withLock { $0 }.first)
        #expect(sent.paymentID == "in_9" && sent.amount == 500 && sent.purchaseType == .subscription)
        let command = try #require(s.log.commands.withLock { $0 }.first)
        #expect(command.kind == .refundRequested && command.subscriptionID == "sub_1" && command.appUserID == "user-1")
        #expect(command.refund == RefundAudit(requestedBy: "key123", paymentID: "in_9", amount: 500, outcome: .accepted, providerRefundID: "re_1"))
    }

    @Test func theSameKeyActsOnceAndAnotherBodyUnderItIsRefused() async throws {
        let s = Self.setup()
        let first = try await s.commander.refund(Self.body(), appUserID: "user-1", caller: Self.caller, idempotencyKey: "k1", logger: Self.logger)
        let again = try await s.commander.refund(Self.body(), appUserID: "user-1", caller: Self.caller, idempotencyKey: "k1", logger: Self.logger)
        #expect(again.replayed && again.body == first.body && again.status == .ok)
        #expect(s.provider.calls.withLock { $0.count } == 1)
        let reused = await Self.refusal {
            _ = try await s.commander.refund(
                Self.body(amount: 100), appUserID: "user-1", caller: Self.caller, idempotencyKey: "k1", logger: Self.logger)
        }
        #expect(reused?.code == "idempotency_key_reused")
        let missing = await Self.refusal {
            _ = try await s.commander.refund(Self.body(), appUserID: "user-1", caller: Self.caller, idempotencyKey: nil, logger: Self.logger)
        }
        #expect(missing?.status == .badRequest && missing?.code == "idempotency_key_required")
    }

    @Test func whatCanBeRefusedIsRefusedBeforeTheProviderIsCalled() async throws {
        let cases: [(Setup, RefundRequestBody, String, HTTPStatus, String)] = [
            (Self.setup(owner: "someone-else"), Self.body(), "user-1", .notFound, "purchase_not_found"),
            (Self.setup(), Self.body(id: "sub_unknown"), "user-1", .notFound, "purchase_not_found"),
            (Self.setup(), Self.body(type: "order"), "user-1", .notFound, "purchase_not_found"),
            (Self.setup(), Self.body(amount: 1001), "user-1", .unprocessableContent, "amount_exceeds_payment"),
            (Self.setup(enabled: false), Self.body(), "user-1", .serviceUnavailable, "provider_disabled"),
            (
                Self.setup(
                    payment: {
                        var p = Self.paid; p.alreadyRefunded = true; return p
                    }()), Self.body(), "user-1", .conflict,
                "already_refunded"
            ),
            (
                Self.setup(
                    payment: {
                        var p = Self.paid; p.paymentID = nil; return p
                    }()), Self.body(), "user-1", .conflict, "nothing_to_refund"
            ),
            (Self.setup(), Self.body(amount: 0), "user-1", .badRequest, "invalid_amount"),
            (Self.setup(), Self.body(type: "gift"), "user-1", .badRequest, "invalid_purchase"),
            (Self.setup(), Self.body(id: "a/b"), "user-1", .badRequest, "invalid_purchase"),
        ]
        for (s, body, user, status, code) in cases {
            let error = await Self.refusal {
                _ = try await s.commander.refund(body, appUserID: user, caller: Self.caller, idempotencyKey: "k", logger: Self.logger)
            }
            #expect(error?.status == status && error?.code == code, "\(code): \(String(describing: error))")
            #expect(s.provider.calls.withLock { $0.isEmpty }, "\(code): the provider was called")
            #expect(s.log.commands.withLock { $0.isEmpty }, "\(code): a record was published")
        }
        let unknown = await Self.refusal {
            _ = try await Self.setup().commander.refund(
                RefundRequestBody(purchase: .init(provider: "paypal", type: "order", id: "1"), amount: nil), appUserID: "user-1",
                caller: Self.caller, idempotencyKey: "k", logger: Self.logger)
        }
        #expect(unknown?.code == "invalid_purchase")
    }

    @Test func aRefusalBeforeTheProviderLeavesTheKeyFreeForTheCorrectedRequest() async throws {
        let s = Self.setup()
        let refused = await Self.refusal {
            _ = try await s.commander.refund(
                Self.body(amount: 5000), appUserID: "user-1", caller: Self.caller, idempotencyKey: "k1", logger: Self.logger)
        }
        #expect(refused?.code == "amount_exceeds_payment")
        let outcome = try await s.commander.refund(
            Self.body(amount: 5000 / 10), appUserID: "user-1", caller: Self.caller, idempotencyKey: "k1", logger: Self.logger)
        #expect(outcome.status == .ok)
    }

    @Test func aProviderRefusalIs422WithItsReasonAndIsKeptUnderTheKey() async throws {
        let s = Self.setup(
            answer: .failure(
                ProviderError(
                    provider: .stripe, operation: "refund", kind: .validation, status: 400, message: "Charge ch_1 has already been refunded.",
                    code: "charge_already_refunded")))
        let outcome = try await s.commander.refund(Self.body(), appUserID: "user-1", caller: Self.caller, idempotencyKey: "k1", logger: Self.logger)
        #expect(outcome.status == .unprocessableContent)
        let answer = Self.json(outcome.body)
        #expect(answer["code"] as? String == "refund_refused")
        #expect((answer["error"] as? String)?.contains("already been refunded") == true)
        let again = try await s.commander.refund(Self.body(), appUserID: "user-1", caller: Self.caller, idempotencyKey: "k1", logger: Self.logger)
        #expect(again.replayed && again.status == .unprocessableContent && s.provider.calls.withLock { $0.count } == 1)
        #expect(s.log.commands.withLock { $0.isEmpty }, "nothing happened at the provider: nothing to audit")
    }

    @Test func noAnswerLeavesAnAuditAndARefreshAndIs504() async throws {
        let s = Self.setup(answer: .failure(ProviderError(provider: .stripe, operation: "refund", kind: .unavailable, message: "timed out")))
        let outcome = try await s.commander.refund(Self.body(), appUserID: "user-1", caller: Self.caller, idempotencyKey: "k1", logger: Self.logger)
        #expect(outcome.status == .gatewayTimeout && Self.json(outcome.body)["code"] as? String == "provider_no_answer")
        let commands = await s.log.waitFor(2)
        #expect(commands.contains { $0.kind == .refundRequested && $0.refund?.outcome == .noAnswer && $0.refund?.requestedBy == "key123" })
        #expect(commands.contains { $0.kind == .refreshRequested && $0.subscriptionID == "sub_1" })
        let again = try await s.commander.refund(Self.body(), appUserID: "user-1", caller: Self.caller, idempotencyKey: "k1", logger: Self.logger)
        #expect(again.replayed && s.provider.calls.withLock { $0.count } == 1, "a repeat must not ask again when the first may have refunded")
    }

    @Test func theProviderKeyIsStablePerCallerKey() {
        let a = RefundCommander.providerKey(caller: Self.caller, idempotencyKey: "k1")
        #expect(a == RefundCommander.providerKey(caller: Self.caller, idempotencyKey: "k1"))
        #expect(a != RefundCommander.providerKey(caller: Self.caller, idempotencyKey: "k2"))
        #expect(a != RefundCommander.providerKey(caller: ServerCaller(keyID: "other", name: "x", scopes: []), idempotencyKey: "k1"))
    }
}
