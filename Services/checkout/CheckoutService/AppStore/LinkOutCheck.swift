import BillingModel
import Foundation
import HTTPServer

/// Create-checkout's App Store fields (`storefront`, `externalPurchaseToken`)
/// against the link-out policy and Apple's token rules, all before any
/// provider is called (docs/app-store.md):
/// - a storefront whose policy says `not_allowed` is 403;
/// - one that needs Apple's entitlement takes a checkout only with a token;
/// - a token must be well formed, of this app (`APP_STORE_BUNDLE_ID`), of
///   this environment (Apple's sandbox tokens only in test mode), unexpired,
///   and never another user's.
struct LinkOutCheck: Sendable {
    let policy: LinkOutPolicySource
    let configuration: AppStoreConfiguration
    let tokens: any ExternalPurchaseTokenStore

    /// How long a token without an end of its own is remembered.
    static let tokenMemory: TimeInterval = 366 * 86_400

    /// The fields' shape: 400 with a code naming the field.
    static func checkShape(_ body: CreateCheckoutRequest) throws(HTTPError) -> (AppStoreStorefront, ExternalPurchaseToken?)? {
        guard let code = body.storefront else {
            if body.externalPurchaseToken != nil {
                throw HTTPError(.badRequest, "externalPurchaseToken needs the storefront it was issued in", code: "storefront_required")
            }
            return nil
        }
        guard let storefront = AppStoreStorefront(code) else {
            throw HTTPError(.badRequest, "storefront must be an ISO 3166-1 alpha-3 code such as USA or NLD", code: "invalid_storefront")
        }
        guard let value = body.externalPurchaseToken else { return (storefront, nil) }
        do {
            return (storefront, try ExternalPurchaseToken(value: value))
        } catch {
            throw HTTPError(
                .badRequest, "externalPurchaseToken \(error.description): send the token StoreKit gave the app, unchanged",
                code: "invalid_external_purchase_token")
        }
    }

    /// What the checkout records, or nil when the request named no storefront:
    /// every check but the token's owner, which ``claim(_:owner:now:)`` makes
    /// once the checkout is admitted by the caller's quota.
    func decide(_ body: CreateCheckoutRequest, now: Date) throws(HTTPError) -> AppStoreCheckout? {
        guard let (storefront, token) = try Self.checkShape(body) else { return nil }
        switch policy.policy.linkOut(for: storefront) {
        case .notAllowed:
            throw HTTPError(
                .forbidden, "The App Store policy does not allow a link to a web checkout in storefront \(storefront)", code: "link_out_not_allowed")
        case .entitlementRequired where token == nil:
            throw HTTPError(
                .unprocessableContent,
                "Storefront \(storefront) needs Apple's External Purchase entitlement: send the externalPurchaseToken StoreKit gave the app",
                code: "external_purchase_token_required")
        case .entitlementRequired, .allowed:
            break
        }
        guard let token else { return AppStoreCheckout(storefront: storefront) }
        try checkToken(token, now: now)
        return AppStoreCheckout(storefront: storefront, token: token)
    }

    /// Records `owner` as the token's user, or refuses (409) a token another
    /// user sent first. The row is kept until the token's end, at most
    /// ``tokenMemory`` from now (the end is the client's to state).
    /// - Parameter owner: the buyer (``CheckoutCreator/Buyer/quotaKey``).
    func claim(_ checkout: AppStoreCheckout?, owner: String, now: Date) async throws {
        guard let checkout, let id = checkout.externalPurchaseID else { return }
        let longest = now.addingTimeInterval(Self.tokenMemory)
        let keepUntil = min(checkout.tokenExpiresAt ?? longest, longest)
        let holder = try await tokens.claim(externalPurchaseID: id, owner: owner, keepUntil: keepUntil)
        guard holder == owner else {
            throw HTTPError(.conflict, "This external purchase token belongs to another user", code: "external_purchase_token_reused")
        }
    }

    /// ``decide(_:now:)`` then ``claim(_:owner:now:)``.
    func check(_ body: CreateCheckoutRequest, owner: String, now: Date) async throws -> AppStoreCheckout? {
        let checkout = try decide(body, now: now)
        try await claim(checkout, owner: owner, now: now)
        return checkout
    }

    /// This app's, this environment's, unexpired.
    private func checkToken(_ token: ExternalPurchaseToken, now: Date) throws(HTTPError) {
        guard let bundleID = configuration.bundleID else {
            throw HTTPError(
                .unprocessableContent, "This deployment takes no external purchase tokens (APP_STORE_BUNDLE_ID is not set)",
                code: "external_purchase_tokens_not_configured")
        }
        if token.bundleID != bundleID || configuration.appAppleID.map({ $0 != token.appAppleID }) == true {
            throw HTTPError(.unprocessableContent, "The external purchase token was issued to another app", code: "external_purchase_token_foreign")
        }
        if token.isSandbox, !configuration.acceptsSandboxTokens {
            throw HTTPError(
                .unprocessableContent, "A token of Apple's sandbox is not accepted by a live deployment", code: "external_purchase_token_sandbox")
        }
        if let expiresAt = token.expiresAt, expiresAt <= now {
            throw HTTPError(
                .unprocessableContent, "The external purchase token has expired; ask StoreKit for a new one", code: "external_purchase_token_expired")
        }
    }
}
