import Foundation
import HTTPServer
import BillingModel
import ProjectionStore

/// The routes for the app's own backend, authenticated with an API key only
/// (``ServerAuthenticator``): what any app user may use now, and their
/// subscription status, with the same answers the app's own
/// `GET /api/entitlements` and `GET /api/subscription/status` give that user.
///
/// They read the projection and nothing else: no purchase is claimed by
/// email (a key has no verified email) and no refetch is started (the app's
/// own reads do that). A key with only ``APIKeyScope/entitlementsRead`` gets
/// the subscription answer without what can act on the subscription (portal
/// link, Paystack email token, pending checkout URL); those need
/// ``APIKeyScope/subscriptionsManage``. `POST …/refunds` is the one that
/// acts: it asks the provider for a refund (``RefundCommander``).
struct ServerRoutes: Sendable {
    let authenticator: ServerAuthenticator
    let reader: SubscriptionStatusReader
    /// Counts each request against its key's quota (``UserQuotaPolicy/Action/serverRead``).
    let quota: UserQuotaGate
    /// `POST …/refunds`, for keys with ``APIKeyScope/purchasesRefund``.
    let refunds: RefundCommander
    let maxBodyBytes: Int
    let now: @Sendable () -> Date

    static let entitlementsPath = "/api/users/{app_user_id}/entitlements"
    static let subscriptionPath = "/api/users/{app_user_id}/subscription"
    static let refundsPath = "/api/users/{app_user_id}/refunds"

    func mount(on registrar: some RouteRegistrar) {
        let router = DatabaseUnavailable(base: registrar)
        router.get(Self.entitlementsPath) { request, context in
            let (_, found) = try await snapshot(request, context)
            return try Self.uncached(HTTPResponse.json(EntitlementsResponse(entitlements: found.entitlements)))
        }
        router.get(Self.subscriptionPath) { request, context in
            let (caller, found) = try await snapshot(request, context)
            return try Self.uncached(HTTPResponse.json(Self.subscriptionAnswer(found.response, for: caller.scopes)))
        }
        router.post(Self.refundsPath) { request, context in
            // Size, then the key, then the body: a caller without the scope learns nothing of validation.
            try JSONBody.checkSize(request, limit: maxBodyBytes)
            let caller = try await authenticator.authenticate(request, requiring: .purchasesRefund, logger: context.logger)
            try await quota.admit(.serverRead, user: "api_key:\(caller.keyID)")
            try await quota.admit(.refund, user: "api_key:\(caller.keyID)")
            let user = try Self.appUserID(context)
            let body = try JSONBody.decode(RefundRequestBody.self, from: request, limit: maxBodyBytes)
            let key = try CheckoutCreator.idempotencyKey(request)
            let outcome = try await refunds.refund(body, appUserID: user, caller: caller, idempotencyKey: key, logger: context.logger)
            var headers: HTTPHeaders = ["Content-Type": "application/json", "Cache-Control": "no-store"]
            if outcome.replayed { headers.add(name: "Idempotent-Replayed", value: "true") }
            return HTTPResponse(status: outcome.status, headers: headers, body: outcome.body)
        }
    }

    /// What a key with `scopes` is told of a subscription: all of it with
    /// ``APIKeyScope/subscriptionsManage``, else only what describes it.
    static func subscriptionAnswer(_ full: SubscriptionStatusResponse, for scopes: Set<APIKeyScope>) -> SubscriptionStatusResponse {
        scopes.grants(.subscriptionsManage) ? full : full.withoutCapabilities
    }

    private func snapshot(_ request: HTTPRequest, _ context: RequestContext) async throws -> (ServerCaller, SubscriptionStatusSnapshot) {
        let caller = try await authenticator.authenticate(request, requiring: .entitlementsRead, logger: context.logger)
        try await quota.admit(.serverRead, user: "api_key:\(caller.keyID)")
        let user = try Self.appUserID(context)
        return (caller, try await reader.snapshot(for: ProjectionUser(appUserID: user, verifiedEmail: nil), at: now()))
    }

    /// The path's `app_user_id`, with the bound a token's subject has
    /// (Authenticator): longer ids never own anything.
    static func appUserID(_ context: RequestContext) throws -> String {
        let user = try context.parameters.require("app_user_id")
        guard !user.isEmpty, user.utf8.count <= 256 else {
            throw HTTPError(.badRequest, "app_user_id must be 1 to 256 bytes", code: "invalid_app_user_id")
        }
        return user
    }

    private static func uncached(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers.add(name: "Cache-Control", value: "no-store")
        return response
    }
}
