import Foundation
import HTTPServer
import BillingModel
import ProjectionStore
import Entitlements
import Providers
import CryptoPrimitives
import Telemetry

/// Changes the owner's subscription to another plan of its product group
/// (docs/plan-changes.md): checks the rules on the projection
/// (``PlanChangeRules``), asks the provider, and publishes a
/// ``SubscriptionCommand`` `plan_change_requested` carrying the plan the
/// provider answered with, so the entitlement follows it at once.
struct PlanChanger: Sendable {
    let commander: SubscriptionCommander
    let idempotency: IdempotencyStore

    func change(_ body: PlanChangeRequest, user: AppUser, idempotencyKey: String?, logger: Logger) async throws -> (body: [UInt8], replayed: Bool) {
        let (target, effective, proration) = try body.checked()
        if let code = body.subscriptionCode { try SubscriptionCommander.checkCharacters(code) }
        guard let key = idempotencyKey else {
            return (try await perform(target, effective, proration, code: body.subscriptionCode, user: user, logger: logger), false)
        }
        // Apart from create-checkout's keys, which share the table.
        let scoped = "plan_change:" + key
        let hash = Hex.encode(SHA256.hash(Array(body.canonical.utf8)))
        return try await idempotency.once(user: user.id, key: scoped, requestHash: hash, id: UUID().uuidString.lowercased()) {
            try await perform(target, effective, proration, code: body.subscriptionCode, user: user, logger: logger)
        }
    }

    private func perform(
        _ target: CatalogID, _ effective: PlanChange.Effective, _ proration: PlanChange.Proration, code: String?, user: AppUser, logger: Logger
    ) async throws -> [UInt8] {
        let now = commander.now()
        let (client, owned) = try await commander.planChangeSubject(to: target, effective: effective, code: code, user: user, at: now)
        let change = PlanChange(variantID: target.rawID, effective: effective, proration: proration)
        let result: ProviderSubscription
        do {
            result = try await client.changePlan(subscriptionID: owned.subscriptionID, change)
        } catch {
            commander.metrics.providerErrors(owned.provider, kind: error.kind.rawValue).increment()
            logger.warning("provider refused a plan change", metadata: ["provider": owned.provider.rawValue, "error": error.description])
            // No answer (or a 5xx): the provider may have changed the plan anyway.
            if error.kind == .unavailable { commander.requestRefresh(owned, user: user, logger: logger) }
            throw SubscriptionCommander.planChangeRefusal(error, "change the plan of")
        }
        var command = SubscriptionCommand(
            commandID: UUID().uuidString.lowercased(), kind: .planChangeRequested, provider: owned.provider,
            subscriptionID: owned.subscriptionID, appUserID: user.id, requestedAt: now)
        var observed = ObservedSubscription(
            status: result.status, renewsAt: result.renewsAt ?? result.nextPaymentDate, endsAt: result.endsAt,
            cancelled: result.cancelled, emailToken: result.emailToken, observedAt: commander.now())
        observed.productID = result.productID
        observed.variantID = result.variantID
        observed.planName = result.productName
        observed.pendingVariantID = result.pendingVariantID
        observed.pendingChangeAt = result.pendingChangeAt
        observed.successor = result.successor
        command.observed = observed
        do {
            try await commander.publisher.publish(command, topic: Topics.commands, key: command.key)
        } catch {
            // The provider changed the plan; its webhook (or the sweep) brings it to the projection.
            logger.error("command record not published", metadata: ["error": String(describing: error), "command.id": command.commandID])
            commander.requestRefresh(owned, user: user, logger: logger)
        }
        commander.metrics.commands(owned.provider, kind: "change").increment()
        logger.info(
            "subscription plan changed",
            metadata: ["provider": owned.provider.rawValue, "command.id": command.commandID, "variant": target.description])
        let response = PlanChangeResponse(
            message: effective == .now ? "Plan changed" : "Plan change scheduled",
            subject: PlanChangeSubject(
                provider: owned.provider, subscriptionCode: owned.subscriptionID, variantId: target.description, effective: effective,
                proration: proration),
            status: result.status,
            renewsAt: result.cancelled ? nil : result.renewsAt)
        return try HTTPResponse.json(response).body
    }
}

extension SubscriptionCommander {
    /// The enabled client of `target`'s provider and the caller's
    /// subscription a change to `target` applies to, the rules checked
    /// (``PlanChangeRules``): what a change and its preview both start from.
    func planChangeSubject(
        to target: CatalogID, effective: PlanChange.Effective, code: String?, user: AppUser, at now: Date
    ) async throws -> (client: any PaymentProvider, subscription: SubscriptionState) {
        let snapshot = try await reader.snapshot(for: ProjectionUser(appUserID: user.id, verifiedEmail: user.verifiedEmail), at: now)
        guard let client = registry[target.provider] else {
            throw HTTPError(
                .serviceUnavailable, "Payment provider \(target.provider.rawValue) is not enabled", code: "provider_disabled",
                headers: ["Retry-After": "60"])
        }
        let owned = try PlanChangeRules.subscription(
            toChange: snapshot.subscriptions, to: target, effective: effective, code: code,
            configuration: reader.resolver.configuration, timings: client.planChangeTimings)
        return (client, owned)
    }

    /// A provider's refusal of a plan change or its preview: a change already scheduled is 409 `plan_change_pending`.
    static func planChangeRefusal(_ error: ProviderError, _ action: String) -> HTTPError {
        if error.code == "plan_change_pending" {
            return HTTPError(.conflict, "A plan change is already scheduled for this subscription", code: "plan_change_pending")
        }
        return refusal(error, action)
    }
}
