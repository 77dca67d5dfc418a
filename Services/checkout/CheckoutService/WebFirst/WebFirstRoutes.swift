import Entitlements
import Foundation
import BillingModel
import HTTPServer
import ProjectionStore
import Telemetry

/// The web-first API (docs/web-first.md): redeem a link, ask for a fresh
/// one, mint an anonymous user, merge it into a signed-in user, restore
/// purchases by verified email.
struct WebFirstRoutes: Sendable {
    let authenticator: Authenticator
    let redemptions: Redemptions?
    let reads: WebFirstReads
    let anonymousUsers: AnonymousUsers?
    let merges: UserMerges
    let reader: SubscriptionStatusReader
    let claimer: PurchaseClaimer
    let quota: UserQuotaGate
    let configuration: WebFirstConfiguration
    let maxBodyBytes: Int
    let now: @Sendable () -> Date

    /// A link's token (or the whole link), or the checkout id of an anonymous
    /// checkout: the completion page's universal link opens the app with
    /// only that id, and the page would show that checkout's link to anyone
    /// holding it anyway.
    private struct RedeemBody: Decodable {
        var token: String?
        var checkoutId: String?
    }
    private struct ResendBody: Decodable { var email: String }
    private struct AliasBody: Decodable { var anonymousToken: String }

    /// The redeem answer, in the error shape too (`success`, `outcome`, `code`, `error`).
    struct RedeemAnswer: Encodable {
        var success: Bool
        var outcome: String
        var purchase: PurchaseReference?
        var code: String?
        var error: String?
    }

    func mount(on registrar: some RouteRegistrar) {
        let router = DatabaseUnavailable(base: registrar)
        router.post("/api/redeem") { request, context in
            try JSONBody.checkSize(request, limit: maxBodyBytes)
            let user = try await authenticator.authenticate(request, fallbackEmail: nil)
            let body = try JSONBody.decode(RedeemBody.self, from: request, limit: maxBodyBytes)
            // Counted per user and per address, before the lookup: guessing costs the guesser.
            try await quota.admit(.redeem, user: user.id)
            try await quota.admit(.redeem, user: address(request))
            guard let redemptions else { return try Self.answer(.unknown, nil) }
            if let checkoutID = body.checkoutId {
                guard body.token == nil, let checkoutID = CheckoutCompletionPage.checkoutID(checkoutID),
                    let checkout = try await reads.checkout(checkoutID), checkout.appUserID == nil
                else { return try Self.answer(.unknown, nil) }
                guard
                    let purchase = try await reads.purchase(
                        ofCheckout: checkoutID, provider: checkout.provider, isSubscription: checkout.isSubscription)
                else { return try Self.answer(.pending, nil) }
                guard
                    let link = try await redemptions.completionPageLink(
                        for: purchase, checkoutID: checkoutID, ref: checkout.ref, logger: context.logger)
                else {
                    // Redeemed already, through its link: whoever did owns it.
                    let owner = try await reads.purchase(purchase.reference)?.owner
                    return try Self.answer(owner == user.id ? .alreadyYours : .belongsToAnotherUser, purchase.reference)
                }
                let (outcome, reference) = try await redemptions.redeem(link.token, user: user, logger: context.logger)
                return try Self.answer(outcome, reference)
            }
            guard let token = body.token.flatMap(RedemptionTokens.parse) else { return try Self.answer(.unknown, nil) }
            let (outcome, purchase) = try await redemptions.redeem(token, user: user, logger: context.logger)
            return try Self.answer(outcome, purchase)
        }
        router.post("/api/redeem/resend") { request, context in
            try JSONBody.checkSize(request, limit: maxBodyBytes)
            let body = try JSONBody.decode(ResendBody.self, from: request, limit: maxBodyBytes)
            try await quota.admit(.redeemResend, user: address(request))
            guard let email = EmailAddress(body.email) else {
                throw HTTPError(.badRequest, "email is not a valid email address", code: "invalid_email")
            }
            // The same answer whether or not the email paid for anything: no enumeration.
            // A failure is logged, not answered: a 503 only for emails that paid would tell them apart.
            if let redemptions {
                do {
                    for purchase in try await reads.unownedPurchases(email: email.value.lowercased(), limit: 5) {
                        _ = try await redemptions.issue(for: purchase, checkoutID: nil, via: "resend", ref: nil, logger: context.logger)
                    }
                } catch {
                    context.logger.error("redemption links not resent", metadata: ["error": String(describing: error)])
                }
            }
            var response = try HTTPResponse.json(["success": true], status: .accepted)
            response.headers.add(name: "Cache-Control", value: "no-store")
            return response
        }
        router.post("/api/anonymous") { request, _ in
            guard let anonymousUsers else {
                throw HTTPError(.notFound, "Anonymous users are not enabled", code: "anonymous_users_disabled")
            }
            try await quota.admit(.anonymousUser, user: address(request))
            var response = try HTTPResponse.json(try anonymousUsers.mint())
            response.headers.add(name: "Cache-Control", value: "no-store")
            return response
        }
        router.post("/api/users/alias") { request, context in
            try JSONBody.checkSize(request, limit: maxBodyBytes)
            let user = try await authenticator.authenticate(request, fallbackEmail: nil)
            let body = try JSONBody.decode(AliasBody.self, from: request, limit: maxBodyBytes)
            guard !user.isAnonymous else {
                throw HTTPError(.badRequest, "Sign in first: the bearer token must be the identity provider's", code: "not_signed_in")
            }
            guard let anonymousID = anonymousUsers?.verify(body.anonymousToken.trimmingCharacters(in: .whitespaces)) else {
                throw HTTPError(.badRequest, "anonymousToken is not a valid anonymous user token", code: "invalid_anonymous_token")
            }
            try await quota.admit(.alias, user: user.id)
            let outcome = try await merges.merge(anonymousID, into: user.id, logger: context.logger)
            switch outcome {
            case .merged, .alreadyMerged:
                return try HTTPResponse.json(AliasAnswer(outcome: outcome.rawValue, appUserId: user.id))
            case .mergedElsewhere:
                throw HTTPError(
                    .conflict, "This anonymous user was already merged into another account", code: "already_merged_elsewhere")
            }
        }
        router.post("/api/restore") { request, context in
            let user = try await authenticator.authenticate(request, fallbackEmail: nil)
            guard !user.isAnonymous else {
                throw HTTPError(.badRequest, "Sign in first: restore finds purchases by the signed-in user's verified email", code: "not_signed_in")
            }
            try await quota.admit(.restore, user: user.id)
            let found = try await reader.snapshot(for: ProjectionUser(appUserID: user.id, verifiedEmail: user.verifiedEmail), at: now())
            await claimer.claimUnowned(in: found, for: user, logger: context.logger)
            // What the verified email found unowned (claimed now, or by a read moments ago); the
            // answer's entitlements already count them, as every read for this user does. A
            // subscription's own payment (Lemon Squeezy's first order) is claimed with it but is
            // no purchase of its own, as for resend (``WebFirstReads/unownedPurchases(email:limit:)``).
            let claimed =
                found.subscriptions.filter { $0.appUserID == nil }.map {
                    PurchaseReference(provider: $0.provider.rawValue, type: .subscription, id: $0.subscriptionID)
                }
                + found.orders.filter { $0.appUserID == nil && $0.subscriptionID == nil }.map {
                    PurchaseReference(provider: $0.provider.rawValue, type: .order, id: $0.orderID)
                }
            var response = try HTTPResponse.json(RestoreAnswer(claimed: claimed, entitlements: found.entitlements))
            response.headers.add(name: "Cache-Control", value: "no-store")
            return response
        }
        router.get("/.well-known/apple-app-site-association") { _, _ in
            guard let body = AppAssociation.apple(appIDs: configuration.appleAppIDs) else {
                throw HTTPError(.notFound, "No app is associated with this domain (APPLE_APP_IDS)", code: "not_found")
            }
            return HTTPResponse(status: .ok, headers: ["Content-Type": "application/json", "Cache-Control": "max-age=3600"], body: body)
        }
        router.get("/.well-known/assetlinks.json") { _, _ in
            guard let body = AppAssociation.android(configuration.androidAppLinks) else {
                throw HTTPError(.notFound, "No Android app is associated with this domain (ANDROID_APP_LINKS)", code: "not_found")
            }
            return HTTPResponse(status: .ok, headers: ["Content-Type": "application/json", "Cache-Control": "max-age=3600"], body: body)
        }
    }

    private func address(_ request: HTTPRequest) -> String {
        ClientAddress.key(request, trustForwardedFor: configuration.trustForwardedFor)
    }

    struct AliasAnswer: Encodable {
        var success = true
        var outcome: String
        var appUserId: String
    }

    struct RestoreAnswer: Encodable {
        var success = true
        var claimed: [PurchaseReference]
        var entitlements: [EntitlementInfo]
    }

    static func answer(_ outcome: Redemptions.Outcome, _ purchase: PurchaseReference?) throws -> HTTPResponse {
        let (status, message): (HTTPStatus, String?) =
            switch outcome {
            case .redeemed, .alreadyYours: (.ok, nil)
            case .pending: (.accepted, nil)
            case .belongsToAnotherUser: (409, "This purchase belongs to another user")
            case .expired: (410, "This link has expired; ask for a new one with POST /api/redeem/resend and the email you paid with")
            case .unknown: (.notFound, "No purchase has this link")
            }
        let ok = message == nil
        var response = try HTTPResponse.json(
            RedeemAnswer(
                success: ok && outcome != .pending, outcome: outcome.rawValue, purchase: ok ? purchase : nil, code: ok ? nil : outcome.rawValue,
                error: message),
            status: status)
        response.headers.add(name: "Cache-Control", value: "no-store")
        // The checkout's purchase is not projected yet: ask again shortly.
        if outcome == .pending { response.headers.add(name: "Retry-After", value: "2") }
        return response
    }
}
