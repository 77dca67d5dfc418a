import Foundation
import HTTPServer
import BillingModel
import ProjectionStore
import Entitlements
import Providers
import Telemetry

/// Cancels and resumes subscriptions for their owners: checks ownership in
/// the projection, asks the provider, and publishes a ``SubscriptionCommand``.
struct SubscriptionCommander: Sendable {
    enum Action: String, Sendable {
        case cancel, resume

        var kind: SubscriptionCommand.Kind { self == .cancel ? .cancelRequested : .resumeRequested }
    }

    /// Longest subscription code or email token accepted.
    static let maximumFieldLength = 128

    let reader: SubscriptionStatusReader
    let registry: ProviderRegistry
    let publisher: any RecordPublisher
    let metrics: CheckoutMetrics
    let now: @Sendable () -> Date

    func perform(_ action: Action, _ body: CancelSubscriptionRequest, user: AppUser, logger: Logger) async throws -> SubscriptionCommandResponse {
        let code = body.subscriptionCode.trimmingCharacters(in: .whitespaces)
        guard !code.isEmpty else { throw HTTPError(.badRequest, "subscription_code is required") }
        guard code.utf8.count <= Self.maximumFieldLength, (body.emailToken?.utf8.count ?? 0) <= Self.maximumFieldLength else {
            throw HTTPError(.badRequest, "subscription_code or email_token is too long")
        }
        try Self.checkCharacters(code)
        // Someone else's subscription is answered exactly like a missing one.
        guard
            let owned = try await reader.ownedSubscription(
                code: code, for: ProjectionUser(appUserID: user.id, verifiedEmail: user.verifiedEmail), at: now())
        else {
            throw HTTPError(.notFound, "Subscription not found", code: "subscription_not_found")
        }
        guard let client = registry[owned.provider] else {
            throw HTTPError(
                .serviceUnavailable, "Payment provider \(owned.provider.rawValue) is not enabled", code: "provider_disabled",
                headers: ["Retry-After": "60"])
        }
        // A Paystack plan change ended this subscription and made the new
        // plan's to start at its period end: renewing it too would charge twice.
        if action == .resume, owned.pendingVariantID != nil, owned.provider.traits.planChangesEndTheSubscription {
            throw HTTPError(
                .conflict, "A plan change is scheduled: the new plan's subscription renews from the period end", code: "plan_change_pending")
        }
        // Paystack's disable/enable need the email token; the client fetches
        // the current one from Paystack itself, so neither the request's
        // `email_token` nor the projection's copy has to be trusted here.
        let result: ProviderSubscription
        do {
            switch action {
            case .cancel: result = try await client.cancelSubscription(id: owned.subscriptionID)
            case .resume: result = try await client.resumeSubscription(id: owned.subscriptionID)
            }
        } catch {
            metrics.providerErrors(owned.provider, kind: error.kind.rawValue).increment()
            logger.warning("provider refused \(action.rawValue)", metadata: ["provider": owned.provider.rawValue, "error": error.description])
            if error.kind == .unavailable {
                // No answer (or a 5xx): the provider may have acted anyway.
                requestRefresh(owned, user: user, logger: logger)
            }
            throw Self.refusal(error, action.rawValue)
        }
        var command = SubscriptionCommand(
            commandID: UUID().uuidString.lowercased(), kind: action.kind, provider: owned.provider,
            subscriptionID: owned.subscriptionID, appUserID: user.id, requestedAt: now())
        // What the provider says now is what the status must show, even when
        // no webhook follows (Paystack sends none for `/subscription/enable`).
        command.observed = ObservedSubscription(
            status: result.status, renewsAt: result.renewsAt ?? result.nextPaymentDate, endsAt: result.endsAt,
            cancelled: result.cancelled, emailToken: result.emailToken, observedAt: now())
        do {
            try await publisher.publish(command, topic: Topics.commands, key: command.key)
        } catch {
            // The provider already acted; repeating the call is harmless for
            // both providers, so the app may simply retry.
            logger.error("command record not published", metadata: ["error": String(describing: error), "command.id": command.commandID])
            throw HTTPError(.serviceUnavailable, "Could not record the request; try again", code: "not_recorded", headers: ["Retry-After": "2"])
        }
        metrics.commands(owned.provider, kind: action.rawValue).increment()
        logger.info("subscription \(action.rawValue) requested", metadata: ["provider": owned.provider.rawValue, "command.id": command.commandID])
        let message = action == .cancel ? "Subscription cancelled" : "Subscription resumed"
        return SubscriptionCommandResponse(
            message: message, subscription: result, knownPeriodEnd: owned.endsAt ?? owned.renewsAt, now: now())
    }

    /// Asks the reconciler to fetch the subscription now, in the background:
    /// after a cancel or resume whose outcome is unknown, what the provider
    /// did reaches the projection even if no webhook tells of it (and the
    /// sweep is the net if this publish fails too).
    @discardableResult
    func requestRefresh(_ owned: SubscriptionState, user: AppUser, logger: Logger) -> Task<Void, Never> {
        let command = SubscriptionCommand(
            commandID: UUID().uuidString.lowercased(), kind: .refreshRequested, provider: owned.provider,
            subscriptionID: owned.subscriptionID, appUserID: user.id, requestedAt: now())
        let publisher = publisher
        return Task {
            do {
                try await publisher.publish(command, topic: Topics.commands, key: command.key)
                logger.info(
                    "refresh requested after a provider call with no answer",
                    metadata: ["provider": command.provider.rawValue, "subscription.id": command.subscriptionID, "command.id": command.commandID])
            } catch {
                logger.warning(
                    "refresh request not published; the sweep covers it",
                    metadata: ["provider": command.provider.rawValue, "subscription.id": command.subscriptionID, "error": String(describing: error)])
            }
        }
    }

    /// Subscription codes are printable ASCII (Lemon Squeezy's numeric ids,
    /// Paystack's `SUB_…`), as the document says. Anything else is refused
    /// before it reaches the database: a NUL byte made PostgreSQL refuse the
    /// query, answered 500 (found by `make fuzz`, deploy/api/FUZZING.md).
    static func checkCharacters(_ code: String) throws(HTTPError) {
        guard code.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) else {
            throw HTTPError(.badRequest, "subscription_code must be printable ASCII")
        }
    }

    /// The answer when the provider refuses a cancel or resume. Refusing the
    /// change itself (400/409/422, or Paystack's 404 "not found or already
    /// inactive" for a subscription the projection says the caller owns: a
    /// cancelled one cancelled again, an active one resumed) is a conflict with
    /// the subscription's state, 409, the app's to resolve; a 502 would tell
    /// apps the provider failed and to retry (StorefrontKit reports it as
    /// `providerUnavailable`). Found by `make fuzz` (deploy/api/FUZZING.md).
    static func refusal(_ error: ProviderError, _ action: String) -> HTTPError {
        switch error.kind {
        case .validation, .notFound:
            HTTPError(
                .conflict, "Payment provider \(error.provider.rawValue) refused to \(action) the subscription in its current state",
                code: "provider_refused")
        default:
            error.httpError
        }
    }

    /// A fresh customer-portal link for the owner's subscription, fetched from
    /// the provider now (Lemon Squeezy's signed portal URL, Paystack's manage
    /// page): never a stored copy that may have expired.
    func portalLink(code rawCode: String?, user: AppUser, logger: Logger) async throws -> PortalLinkResponse {
        let code = (rawCode ?? "").trimmingCharacters(in: .whitespaces)
        guard !code.isEmpty else { throw HTTPError(.badRequest, "subscription_code is required") }
        guard code.utf8.count <= Self.maximumFieldLength else { throw HTTPError(.badRequest, "subscription_code is too long") }
        try Self.checkCharacters(code)
        guard
            let owned = try await reader.ownedSubscription(
                code: code, for: ProjectionUser(appUserID: user.id, verifiedEmail: user.verifiedEmail), at: now())
        else {
            throw HTTPError(.notFound, "Subscription not found", code: "subscription_not_found")
        }
        guard let client = registry[owned.provider] else {
            throw HTTPError(
                .serviceUnavailable, "Payment provider \(owned.provider.rawValue) is not enabled", code: "provider_disabled",
                headers: ["Retry-After": "60"])
        }
        do {
            let url = try await client.managementURL(subscriptionID: owned.subscriptionID)
            return PortalLinkResponse(url: url, provider: owned.provider, subscriptionCode: owned.subscriptionID)
        } catch {
            metrics.providerErrors(owned.provider, kind: error.kind.rawValue).increment()
            logger.warning("provider refused a portal link", metadata: ["provider": owned.provider.rawValue, "error": error.description])
            throw error.httpError
        }
    }
}

/// `GET /api/subscription/portal`: where the customer manages the subscription.
struct PortalLinkResponse: Encodable, Sendable {
    var success = true
    var url: String
    var provider: Provider
    var subscriptionCode: String

    enum CodingKeys: String, CodingKey { case success, url, provider, subscriptionCode = "subscription_code" }
}
