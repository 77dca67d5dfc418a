import Foundation
import HTTPServer
import BillingModel
import ProjectionStore
import Telemetry

/// The app-facing endpoints: create-checkout, entitlements, subscription
/// status, cancel, resume, plan change and its preview, and a fresh portal link.
struct CheckoutRoutes: Sendable {
    let authenticator: Authenticator
    let creator: CheckoutCreator
    let commander: SubscriptionCommander
    let planChanger: PlanChanger
    let planPreviewer: PlanChangePreviewer
    let reader: SubscriptionStatusReader
    let claimer: PurchaseClaimer
    let refresher: SubscriptionRefresher
    /// Per-user quotas of portal, cancel and resume (create-checkout counts in ``CheckoutCreator``).
    let quota: UserQuotaGate
    let maxBodyBytes: Int
    /// Anonymous checkouts (`CHECKOUT_ANONYMOUS=on`) and how their callers are counted.
    var webFirst = WebFirstConfiguration()
    let now: @Sendable () -> Date

    func mount(on registrar: some RouteRegistrar) {
        let router = DatabaseUnavailable(base: registrar)
        router.post("/api/create-checkout") { request, context in
            // Size, then the token, then the body: an anonymous caller learns nothing about validation.
            try JSONBody.checkSize(request, limit: maxBodyBytes)
            // Without any credential, a web-first buyer when the deployment sells before sign-in.
            let isAnonymous =
                webFirst.anonymousCheckouts && request.headers["Authorization"] == nil && APIKeyCredential.presented(in: request) == nil
            let verified = isAnonymous ? nil : try await authenticator.verifiedUser(request)
            let body = try JSONBody.decode(CreateCheckoutRequest.self, from: request, limit: maxBodyBytes)
            let buyer: CheckoutCreator.Buyer
            if isAnonymous {
                buyer = .anonymous(address: ClientAddress.key(request, trustForwardedFor: webFirst.trustForwardedFor))
            } else if let verified {
                buyer = .user(verified)
            } else {
                buyer = .user(try await authenticator.authenticate(request, fallbackEmail: body.customerEmail))
            }
            let key = try CheckoutCreator.idempotencyKey(request)
            let outcome = try await creator.create(
                body, buyer: buyer, idempotencyKey: key, acceptLanguage: request.headers["Accept-Language"], logger: context.logger)
            var headers: HTTPHeaders = ["Content-Type": "application/json", "Cache-Control": "no-store"]
            if outcome.replayed { headers.add(name: "Idempotent-Replayed", value: "true") }
            return HTTPResponse(status: .ok, headers: headers, body: outcome.body)
        }
        router.get("/api/subscription/status") { request, context in
            let found = try await snapshot(request, logger: context.logger)
            var response = try HTTPResponse.json(found.response)
            response.headers.add(name: "Cache-Control", value: "no-store")
            return response
        }
        router.get("/api/subscription/portal") { request, context in
            let user = try await authenticator.authenticate(request, fallbackEmail: request.query["email"])
            try await quota.admit(.portal, user: user.id)
            var response = try HTTPResponse.json(
                try await commander.portalLink(code: request.query["subscription_code"], user: user, logger: context.logger))
            response.headers.add(name: "Cache-Control", value: "no-store")
            return response
        }
        router.get("/api/entitlements") { request, context in
            let found = try await snapshot(request, logger: context.logger)
            var response = try HTTPResponse.json(EntitlementsResponse(entitlements: found.entitlements))
            response.headers.add(name: "Cache-Control", value: "no-store")
            return response
        }
        for action in [SubscriptionCommander.Action.cancel, .resume] {
            router.post("/api/subscription/\(action.rawValue)") { request, context in
                try JSONBody.checkSize(request, limit: maxBodyBytes)
                let user = try await authenticator.authenticate(request, fallbackEmail: request.query["email"])
                let body = try JSONBody.decode(CancelSubscriptionRequest.self, from: request, limit: maxBodyBytes)
                try await quota.admit(.subscriptionChange, user: user.id)
                return try HTTPResponse.json(try await commander.perform(action, body, user: user, logger: context.logger))
            }
        }
        router.post("/api/subscription/change") { request, context in
            try JSONBody.checkSize(request, limit: maxBodyBytes)
            let user = try await authenticator.authenticate(request, fallbackEmail: request.query["email"])
            let body = try JSONBody.decode(PlanChangeRequest.self, from: request, limit: maxBodyBytes)
            let key = try CheckoutCreator.idempotencyKey(request)
            try await quota.admit(.subscriptionChange, user: user.id)
            let outcome = try await planChanger.change(body, user: user, idempotencyKey: key, logger: context.logger)
            var headers: HTTPHeaders = ["Content-Type": "application/json", "Cache-Control": "no-store"]
            if outcome.replayed { headers.add(name: "Idempotent-Replayed", value: "true") }
            return HTTPResponse(status: .ok, headers: headers, body: outcome.body)
        }
        router.get("/api/subscription/change/preview") { request, context in
            let user = try await authenticator.authenticate(request, fallbackEmail: request.query["email"])
            let body = PlanChangeRequest(query: { request.query[$0] })
            // Counted with the change: a Stripe preview is a provider call too.
            try await quota.admit(.subscriptionChange, user: user.id)
            var response = try HTTPResponse.json(try await planPreviewer.preview(body, user: user, logger: context.logger))
            response.headers.add(name: "Cache-Control", value: "no-store")
            return response
        }
    }

    /// What the projection holds for the caller; purchases found through the
    /// caller's verified email are claimed for them on the way, and
    /// subscriptions past their period end are refetched in the background
    /// (``SubscriptionRefresher``; the answer does not wait for it).
    /// The `email` query parameter, when sent, must be the caller's own.
    func snapshot(_ request: HTTPRequest, logger: Logger) async throws -> SubscriptionStatusSnapshot {
        let email = request.query["email"]
        let user = try await authenticator.authenticate(request, fallbackEmail: email)
        if let email, !email.isEmpty, !user.emailMatches(email) {
            throw HTTPError(.forbidden, "email does not match the signed-in user", code: "email_mismatch")
        }
        let found = try await reader.snapshot(for: ProjectionUser(appUserID: user.id, verifiedEmail: user.verifiedEmail), at: now())
        await claimer.claimUnowned(in: found, for: user, logger: logger)
        refresher.refreshOverdue(in: found, for: user, logger: logger)
        return found
    }
}
