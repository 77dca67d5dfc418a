import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension StorefrontClient {
    /// The server's app configuration (`GET /api/app-config`; no token
    /// needed), kept with its `ETag`: asking again revalidates, and an
    /// unchanged answer comes back as a bodiless 304.
    public func appConfig() async throws(StorefrontError) -> AppConfig {
        var headers: [String: String] = [:]
        if let etag = appConfigEntry?.etag { headers["If-None-Match"] = etag }
        let reply = try await send("GET", "api/app-config", headers: headers, authenticated: false)
        if reply.response.statusCode == 304, let entry = appConfigEntry { return entry.config }
        let config = try decode(AppConfig.self, reply.data, what: "app configuration")
        appConfigEntry = (reply.response.value(forHTTPHeaderField: "ETag"), config)
        return config
    }

    /// Whether the app may show a web checkout here: the server's policy for
    /// the device's App Store storefront (``appConfig()``) with StoreKit's
    /// eligibility for Apple's External Purchase custom links
    /// (``Options/appStore``).
    ///
    /// - ``WebCheckoutAvailability/available(_:)``: show the button; pass the
    ///   permit to ``createCheckout(for:email:offer:permit:)``.
    /// - ``WebCheckoutAvailability/needsNotice(storefront:entitlement:)``: show
    ///   the button; on a tap call ``prepareWebCheckout(tokenType:)``.
    /// - ``WebCheckoutAvailability/unavailable(storefront:reason:)``: don't.
    public func webCheckoutAvailability() async throws(StorefrontError) -> WebCheckoutAvailability {
        let policy = try await appConfig().linkOut
        let appStore = options.appStore
        return await WebCheckoutAvailability.decide(
            policy: policy, storefront: await appStore.storefront(), isEligible: { await appStore.isEligibleForExternalPurchaseLinks() })
    }

    /// For a storefront that needs Apple's entitlement: shows Apple's notice
    /// and, when the buyer continues, obtains StoreKit's token. Call it when
    /// the buyer taps the purchase button, then open the checkout with the
    /// permit it returns.
    /// - Parameter tokenType: `ACQUISITION` for a new customer (the default),
    ///   `SERVICES` for one who bought before, `LINK_OUT` in Japan.
    /// - Returns: nil when the buyer cancelled the notice (open nothing).
    /// - Throws: ``StorefrontError/invalidResponse(message:)`` when StoreKit
    ///   gives no token, as it does when the app lacks the entitlement.
    public func prepareWebCheckout(tokenType: String = "ACQUISITION") async throws(StorefrontError) -> WebCheckoutPermit? {
        let appStore = options.appStore
        guard case .code(let storefront) = await appStore.storefront() else {
            throw .invalidResponse(message: "StoreKit did not say which App Store storefront this device uses")
        }
        do {
            guard try await appStore.showExternalPurchaseNotice() else { return nil }
            guard let token = try await appStore.externalPurchaseToken(type: tokenType) else {
                throw StorefrontError.invalidResponse(message: "StoreKit gave no \(tokenType) external purchase token")
            }
            return WebCheckoutPermit(storefront: storefront.uppercased(), externalPurchaseToken: token)
        } catch let error as StorefrontError {
            throw error
        } catch {
            throw .invalidResponse(message: "StoreKit refused the external purchase notice or token: \(error)")
        }
    }

    /// Opens a hosted checkout for `product` from an App Store app, carrying
    /// the storefront and token of `permit` (from ``webCheckoutAvailability()``
    /// or ``prepareWebCheckout(tokenType:)``). The server refuses a storefront
    /// its policy does not allow (403 `link_out_not_allowed`) and a missing,
    /// foreign, expired or reused token (`external_purchase_token_*`).
    /// See ``createCheckout(variantID:email:)``.
    public func createCheckout(
        for product: Product, email: String? = nil, offer: CheckoutOffer = CheckoutOffer(), permit: WebCheckoutPermit
    ) async throws(StorefrontError) -> CheckoutSession {
        try await openCheckout(
            variantID: product.variantID, productID: product.id, expectsSubscription: product.isSubscription, email: email, offer: offer,
            permit: permit)
    }
}
