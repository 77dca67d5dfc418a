import CryptoPrimitives
import Foundation
import HTTPServer
import BillingModel
import ProjectionStore
import Providers
import Telemetry

/// Where the checkout finds the payment a refund gives back: the projection
/// (``RefundablePaymentReader/refundablePayment(provider:type:id:ownedBy:)``).
protocol RefundablePaymentLookup: Sendable {
    func refundablePayment(provider: Provider, type: PurchaseType, id: String, ownedBy appUserID: String) async throws -> RefundablePayment?
}

extension RefundablePaymentReader: RefundablePaymentLookup {}

/// Refunds a purchase's payment for support, through the provider's own
/// refund API, for a server key with ``APIKeyScope/purchasesRefund``.
///
/// Everything that can be refused without the provider is refused before it
/// is called: a provider not enabled, a purchase the user does not own
/// (answered like a missing one), nothing paid or left to refund, more than
/// is left. The refund itself changes no access: the provider's refund
/// webhook does, through the money-back rules, like a refund made on the
/// provider's dashboard. What was asked, by which key, is published as a
/// `refund_requested` ``SubscriptionCommand`` the projector audits.
struct RefundCommander: Sendable {
    let lookup: any RefundablePaymentLookup
    let registry: ProviderRegistry
    let idempotency: any RefundIdempotency
    let publisher: any RecordPublisher
    let metrics: CheckoutMetrics
    let now: @Sendable () -> Date

    /// An answer and whether it was replayed from an idempotency record.
    struct Outcome: Sendable {
        var status: HTTPStatus
        var body: [UInt8]
        var replayed: Bool
    }

    /// - Parameter idempotencyKey: the caller's `Idempotency-Key`; required,
    ///   since a repeated refund moves money twice.
    func refund(
        _ body: RefundRequestBody, appUserID: String, caller: ServerCaller, idempotencyKey: String?, logger: Logger
    ) async throws -> Outcome {
        let target = try body.target()
        guard let idempotencyKey else {
            throw HTTPError(
                .badRequest, "Idempotency-Key header is required: a repeated refund would give the money back twice",
                code: "idempotency_key_required")
        }
        // As on every route: 503 provider_disabled (the deployment's configuration, not the request).
        guard let client = registry[target.provider] else {
            throw HTTPError(
                .serviceUnavailable, "Payment provider \(target.provider.rawValue) is not enabled", code: "provider_disabled",
                headers: ["Retry-After": "60"])
        }
        let owner = "refund:api_key:\(caller.keyID)"
        let commandID = UUID().uuidString.lowercased()
        switch try await idempotency.begin(
            user: owner, key: idempotencyKey, requestHash: Self.hash(target, appUserID: appUserID), checkoutID: commandID)
        {
        case .replay(let stored):
            metrics.idempotentReplays.increment()
            guard let (status, answer) = StoredRefundAnswer.decode(stored) else {
                throw HTTPError(.internalServerError, "Stored refund answer is unreadable")
            }
            return Outcome(status: status, body: answer, replayed: true)
        case .mismatch:
            throw IdempotencyStore.reusedKey
        case .inProgress:
            throw IdempotencyStore.stillRunning
        case .acquired:
            break
        }
        let payment: RefundablePayment
        do {
            payment = try await checkedPayment(target, appUserID: appUserID)
        } catch {
            // Nothing was asked of the provider: the key may be used again.
            await idempotency.release(user: owner, key: idempotencyKey, checkoutID: commandID)
            throw error
        }
        // From here the provider was asked: its answer, whatever it is, is
        // kept under the key, so a repeat never asks again.
        let answer = await ask(
            client, payment: payment, target: target, appUserID: appUserID, caller: caller,
            providerKey: Self.providerKey(caller: caller, idempotencyKey: idempotencyKey), commandID: commandID, logger: logger)
        do {
            try await idempotency.complete(
                user: owner, key: idempotencyKey, response: StoredRefundAnswer.encode(status: answer.status, body: answer.body))
        } catch {
            logger.warning(
                "refund answer not stored under its idempotency key", metadata: ["error": String(describing: error), "command.id": commandID])
        }
        return Outcome(status: answer.status, body: answer.body, replayed: false)
    }

    /// The purchase's payment, refused when the user does not own the
    /// purchase, nothing is left to refund, or more than is left is asked for.
    func checkedPayment(_ target: RefundTarget, appUserID: String) async throws -> RefundablePayment {
        guard let payment = try await lookup.refundablePayment(provider: target.provider, type: target.type, id: target.id, ownedBy: appUserID)
        else {
            // Someone else's purchase is answered exactly like a missing one.
            throw HTTPError(.notFound, "Purchase not found", code: "purchase_not_found")
        }
        guard payment.paymentID != nil else {
            throw HTTPError(.conflict, "The subscription has no paid payment to refund yet", code: "nothing_to_refund")
        }
        // An order's refunds are summed in the projection; of a subscription's
        // payment only that one was made is known (partial or full), so a
        // further refund of it is the provider dashboard's.
        if payment.alreadyRefunded || payment.left == 0 {
            throw HTTPError(.conflict, "The payment was already refunded", code: "already_refunded")
        }
        if let amount = target.amount, let left = payment.left, amount > left {
            throw HTTPError(
                .unprocessableContent, "amount \(amount) is more than the \(left) left to refund of the payment", code: "amount_exceeds_payment")
        }
        return payment
    }

    /// Calls the provider and turns what happened into the answer; publishes
    /// the audit record when the provider accepted or did not answer.
    private func ask(
        _ client: any PaymentProvider, payment: RefundablePayment, target: RefundTarget, appUserID: String, caller: ServerCaller,
        providerKey: String, commandID: String, logger: Logger
    ) async -> (status: HTTPStatus, body: [UInt8]) {
        let paymentID = payment.paymentID ?? target.id
        let request = RefundRequest(
            purchaseType: target.type, purchaseID: target.id, paymentID: paymentID, amount: target.amount, idempotencyKey: providerKey)
        var command = SubscriptionCommand(
            commandID: commandID, kind: .refundRequested, provider: target.provider, subscriptionID: target.id, appUserID: appUserID,
            requestedAt: now())
        command.purchaseType = target.type
        do {
            let refund = try await client.refund(request)
            command.refund = RefundAudit(
                requestedBy: caller.keyID, paymentID: paymentID, amount: target.amount ?? refund.amount, outcome: .accepted,
                providerRefundID: refund.id)
            await record(command, logger: logger)
            metrics.commands(target.provider, kind: "refund").increment()
            logger.info(
                "refund accepted by the provider",
                metadata: ["provider": target.provider.rawValue, "command.id": commandID, "api_key.id": caller.keyID])
            let answer = RefundAnswer(
                purchase: .init(provider: target.provider, type: target.type, id: target.id), paymentID: paymentID, refund: refund,
                commandID: commandID)
            guard let body = try? JSONEncoder().encode(answer) else {
                return (.internalServerError, HTTPError(.internalServerError, "").response.body)
            }
            return (.ok, Array(body))
        } catch {
            metrics.providerErrors(target.provider, kind: error.kind.rawValue).increment()
            logger.warning("provider refused a refund", metadata: ["provider": target.provider.rawValue, "error": error.description])
            let refusal = Self.refusal(error)
            if error.kind == .unavailable {
                // No answer: the refund may have happened. Audited as such, and
                // the subscription fetched now, so the projection learns it
                // even if the webhook never comes.
                command.refund = RefundAudit(
                    requestedBy: caller.keyID, paymentID: paymentID, amount: target.amount, outcome: .noAnswer, providerRefundID: nil)
                await record(command, logger: logger)
                if target.type == .subscription { requestRefresh(target, appUserID: appUserID, logger: logger) }
            }
            return (refusal.status, refusal.response.body)
        }
    }

    /// Publishes the audit record; a failure is logged, not answered: the
    /// provider has acted, and the refund webhook still reaches the projection.
    private func record(_ command: SubscriptionCommand, logger: Logger) async {
        do {
            try await publisher.publish(command, topic: Topics.commands, key: command.key)
        } catch {
            logger.error(
                "refund audit record not published",
                metadata: ["error": String(describing: error), "command.id": command.commandID, "api_key.id": command.refund?.requestedBy ?? ""])
        }
    }

    /// A `refresh_requested` command for the subscription (as
    /// ``SubscriptionCommander/requestRefresh(_:user:logger:)`` leaves one):
    /// the reconciler fetches it at once.
    private func requestRefresh(_ target: RefundTarget, appUserID: String, logger: Logger) {
        var command = SubscriptionCommand(
            commandID: UUID().uuidString.lowercased(), kind: .refreshRequested, provider: target.provider, subscriptionID: target.id,
            appUserID: appUserID, requestedAt: now())
        command.purchaseType = .subscription
        let publisher = publisher
        Task {
            do {
                try await publisher.publish(command, topic: Topics.commands, key: command.key)
            } catch {
                logger.warning("refresh request not published; the sweep covers it", metadata: ["error": String(describing: error)])
            }
        }
    }

    /// A provider's refusal is the caller's to read (422 `refund_refused` with
    /// the provider's own reason); no answer is 504 `provider_no_answer`, which must not be
    /// retried blindly (the refund may have happened: read the status first).
    static func refusal(_ error: ProviderError) -> HTTPError {
        switch error.kind {
        case .validation, .notFound, .rejected:
            HTTPError(
                .unprocessableContent, "Payment provider \(error.provider.rawValue) refused the refund: \(error.message)", code: "refund_refused")
        case .unavailable:
            HTTPError(
                .gatewayTimeout,
                "Payment provider \(error.provider.rawValue) did not answer; the refund may have been made. Check the purchase before asking again",
                code: "provider_no_answer")
        default:
            error.httpError
        }
    }

    /// What must match for a repeated key to replay: the user, the purchase and the amount.
    static func hash(_ target: RefundTarget, appUserID: String) -> String {
        let fields = [appUserID, target.provider.rawValue, target.type.rawValue, target.id, target.amount.map(String.init) ?? ""]
        return Hex.encode(SHA256.hash(Array(fields.map { "\($0.utf8.count):\($0)" }.joined(separator: "|").utf8)))
    }

    /// The key the provider gets (Stripe's `Idempotency-Key`): the same for
    /// every attempt under one caller key, even after a release, so the
    /// provider itself refunds once.
    static func providerKey(caller: ServerCaller, idempotencyKey: String) -> String {
        String(Hex.encode(SHA256.hash(Array("\(caller.keyID)|\(idempotencyKey)".utf8))).prefix(48))
    }
}
