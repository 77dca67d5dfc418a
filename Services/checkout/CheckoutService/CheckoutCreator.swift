import Timing
import Catalog
import CryptoPrimitives
import Foundation
import HTTPServer
import BillingModel
import Providers
import Telemetry
import Webhooks

/// Creates hosted checkouts: validates the request against the cached
/// catalog, honours `Idempotency-Key`, asks the provider, and publishes the
/// ``CheckoutCreatedRecord`` before answering.
struct CheckoutCreator: Sendable {
    let catalog: CatalogCache
    let registry: ProviderRegistry
    let idempotency: IdempotencyStore
    /// Per-user quota; counted only for requests that will call the provider
    /// (an idempotent replay is answered from the store without it).
    let quota: UserQuotaGate
    let publisher: any RecordPublisher
    let configuration: CheckoutConfiguration
    /// Signs each checkout's (checkout id, app user id) for the provider's custom data.
    let ownership: OwnershipProof
    /// The App Store storefront and token of a checkout opened from an iOS app.
    let linkOut: LinkOutCheck
    let metrics: CheckoutMetrics
    let now: @Sendable () -> Date

    /// Longest `Idempotency-Key` accepted.
    static let maximumKeyLength = 255

    /// The answer body and whether it was replayed from an idempotency record.
    struct Outcome: Sendable {
        var body: [UInt8]
        var replayed: Bool
    }

    /// Who a checkout is for: a signed-in (or Storefront-anonymous) app
    /// user, or, with `CHECKOUT_ANONYMOUS=on`, nobody yet (a web-first buyer
    /// counted by client address; the purchase is redeemed later).
    enum Buyer: Sendable {
        case user(AppUser)
        case anonymous(address: String)

        var user: AppUser? {
            if case .user(let user) = self { return user }
            return nil
        }

        /// Whose quota a checkout counts against and whose idempotency keys it
        /// shares: an anonymous caller's are its address's, so nobody
        /// elsewhere can replay its answer (which names its checkout).
        var quotaKey: String {
            switch self {
            case .user(let user): user.id
            case .anonymous(let address): "anonymous:" + address
            }
        }
    }

    func create(_ body: CreateCheckoutRequest, user: AppUser, idempotencyKey: String?, logger: Logger) async throws -> Outcome {
        try await create(body, buyer: .user(user), idempotencyKey: idempotencyKey, logger: logger)
    }

    /// - Parameter acceptLanguage: the request's `Accept-Language`, the buyer's
    ///   language when the body names no `locale` (not part of the idempotency hash).
    func create(
        _ body: CreateCheckoutRequest, buyer: Buyer, idempotencyKey: String?, acceptLanguage: String? = nil, logger: Logger
    ) async throws -> Outcome {
        let (item, variant) = try validate(body, user: buyer.user)
        let quotaKey = buyer.quotaKey
        let locale = Self.locale(body, acceptLanguage: acceptLanguage)
        // Refused before the quota counts it; its token is claimed only once admitted.
        let appStore = try linkOut.decide(body, now: now())
        guard let key = idempotencyKey else {
            try await quota.admit(.createCheckout, user: quotaKey)
            try await linkOut.claim(appStore, owner: quotaKey, now: now())
            return Outcome(
                body: try await createNew(
                    body, item: item, variant: variant, buyer: buyer, checkoutID: Self.newCheckoutID(), locale: locale, appStore: appStore,
                    logger: logger),
                replayed: false)
        }
        let checkoutID = Self.newCheckoutID()
        let outcome = try await idempotency.once(user: quotaKey, key: key, requestHash: Self.hash(body), id: checkoutID) {
            try await quota.admit(.createCheckout, user: quotaKey)
            try await linkOut.claim(appStore, owner: quotaKey, now: now())
            return try await createNew(
                body, item: item, variant: variant, buyer: buyer, checkoutID: checkoutID, locale: locale, appStore: appStore, logger: logger)
        }
        if outcome.replayed { metrics.idempotentReplays.increment() }
        return Outcome(body: outcome.body, replayed: outcome.replayed)
    }

    /// Checks email syntax and ownership, and that the variant is a known catalog item.
    /// - Parameter user: nil for an anonymous checkout, whose typed email is only a pre-fill.
    func validate(_ body: CreateCheckoutRequest, user: AppUser?) throws(HTTPError) -> (CatalogItem, CatalogID) {
        if body.hasInvalidEmail { throw HTTPError(.badRequest, "customerEmail is not a valid email address", code: "invalid_email") }
        if !body.hasValidRef { throw HTTPError(.badRequest, "ref must be 1–64 of A-Z a-z 0-9 . _ ~ -", code: "invalid_ref") }
        try Self.validateOfferShape(body)
        _ = try LinkOutCheck.checkShape(body)
        if let user, let email = body.email, !user.emailMatches(email.value) {
            throw HTTPError(.forbidden, "customerEmail does not match the signed-in user", code: "email_mismatch")
        }
        guard !body.variantId.isEmpty else { throw HTTPError(.badRequest, "variantId is required") }
        guard let variant = body.catalogVariantID else {
            throw HTTPError(.badRequest, "variantId is not a valid catalog id (e.g. ls_123 or ps_PLN_abc)")
        }
        // Asked of the buyer, not left for the provider to refuse (a 502 that names no cause).
        if variant.provider.traits.checkoutNeedsTheEmail, body.email == nil, user?.email.flatMap(EmailAddress.init) == nil {
            throw HTTPError(.badRequest, "customerEmail is required: \(variant.provider.rawValue) needs the buyer's email", code: "email_required")
        }
        if let product = body.productId, !product.isEmpty, body.catalogProductID == nil {
            throw HTTPError(.badRequest, "productId is not a valid catalog id")
        }
        switch catalog.lookup(variant) {
        case .found(let item):
            try Self.validateOffer(body, item: item, variant: variant)
            return (item, variant)
        case .unknown: throw HTTPError(.notFound, "Unknown variant \(variant)", code: "unknown_variant")
        case .notLoaded:
            throw HTTPError(
                .serviceUnavailable, "Catalog not loaded yet; try again shortly", code: "catalog_not_loaded", headers: ["Retry-After": "5"])
        }
    }

    private func createNew(
        _ body: CreateCheckoutRequest, item: CatalogItem, variant: CatalogID, buyer: Buyer, checkoutID: String, locale: CheckoutLocale?,
        appStore: AppStoreCheckout?, logger: Logger
    ) async throws -> [UInt8] {
        let user = buyer.user
        let client: any PaymentProvider
        do {
            client = try registry.client(for: variant.provider, operation: "createCheckout")
        } catch {
            throw HTTPError(.notFound, "Unknown variant \(variant)", code: "unknown_variant")
        }
        let email = body.email ?? user?.email.flatMap(EmailAddress.init)
        let createdAt = now()
        let request = CheckoutRequest(
            variantID: variant.rawID, email: email, appUserID: user?.id, checkoutID: checkoutID,
            ownershipProof: user.map { ownership.proof(checkoutID: checkoutID, appUserID: $0.id) }
                ?? ownership.proof(anonymousCheckoutID: checkoutID),
            redirectURL: configuration.redirectURL.map { Self.redirect($0, checkoutID: checkoutID) },
            expiresAt: createdAt.addingTimeInterval(configuration.checkoutExpiry.inSeconds),
            // A provider that is told the amount (Paystack, even though the plan sets it) gets the
            // cached item's price, which saves a lookup.
            amount: variant.provider.traits.checkoutStatesTheAmount ? item.price : nil, promotionCode: body.promotionCode,
            trialDays: body.trialDays, locale: locale)
        let checkout: ProviderCheckout
        do {
            checkout = try await client.createCheckout(request)
        } catch {
            metrics.providerErrors(variant.provider, kind: error.kind.rawValue).increment()
            logger.warning(
                "provider refused checkout", metadata: ["provider": variant.provider.rawValue, "error": error.description, "checkout.id": checkoutID])
            if error.kind == .offerRefused { throw Self.offerRefusal(error, promotionCode: request.promotionCode) }
            throw error.httpError
        }
        let record = CheckoutCreatedRecord(
            checkoutID: checkoutID, provider: variant.provider, appUserID: user?.id, email: email?.value,
            // A typed customerEmail is a pre-fill; only the token's verified email counts for matching.
            emailVerified: email.map { user?.isVerifiedEmail($0.value) ?? false } ?? false, variantID: variant,
            productID: item.catalogProductID, providerCheckoutID: checkout.providerCheckoutID, url: checkout.url,
            createdAt: createdAt, expiresAt: checkout.expiresAt ?? request.expiresAt, isSubscription: item.isSubscription, ref: body.ref,
            appStore: appStore)
        do {
            try await publisher.publish(record, topic: Topics.checkouts, key: record.key)
        } catch {
            logger.error("checkout record not published", metadata: ["error": String(describing: error), "checkout.id": checkoutID])
            throw HTTPError(.serviceUnavailable, "Could not record the checkout; try again", code: "not_recorded", headers: ["Retry-After": "2"])
        }
        metrics.checkoutsCreated(variant.provider).increment()
        logger.info(
            "checkout created",
            metadata: [
                "provider": variant.provider.rawValue, "checkout.id": checkoutID, "variant": variant.description,
                "anonymous": user == nil ? "true" : "false",
            ])
        let response = CreateCheckoutResponse(
            checkoutUrl: checkout.url, checkoutId: checkoutID, provider: variant.provider, expiresAt: record.expiresAt)
        return try HTTPResponse.json(response).body
    }

    static func newCheckoutID() -> String { UUID().uuidString.lowercased() }

    /// The redirect URL with `checkout_id=<id>` added, so the completion page
    /// can find the purchase (an app deep link gets it too).
    static func redirect(_ url: String, checkoutID: String) -> String {
        guard var components = URLComponents(string: url) else { return url }
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "checkout_id", value: checkoutID)]
        return components.string ?? url
    }

    /// A digest of the request's fields in a fixed order, so the same request
    /// hashes the same whatever the JSON's key order or spacing.
    static func hash(_ body: CreateCheckoutRequest) -> String {
        let fields: [String] = [
            body.customerEmail?.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() ?? "", body.variantId, body.productId ?? "",
        ]
        // A ref and each offer field are hashed only when sent (each tagged
        // with its name), so requests without them hash as they always did.
        let offers = [
            ("promotionCode", body.promotionCode), ("trialDays", body.trialDays.map(String.init)), ("locale", body.locale),
            ("storefront", body.storefront), ("externalPurchaseToken", body.externalPurchaseToken),
        ]
        .compactMap { name, value in value.map { name + "=" + $0 } }
        let canonical = (fields + (body.ref.map { [$0] } ?? []) + offers)
            .map { "\($0.utf8.count):\($0)" }.joined(separator: "|")
        return Hex.encode(SHA256.hash(Array(canonical.utf8)))
    }

    /// The `Idempotency-Key` header, checked: 1–255 printable ASCII characters.
    static func idempotencyKey(_ request: HTTPRequest) throws(HTTPError) -> String? {
        guard let key = request.headers["Idempotency-Key"] else { return nil }
        guard !key.isEmpty, key.utf8.count <= maximumKeyLength, key.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) else {
            throw HTTPError(.badRequest, "Idempotency-Key must be 1–\(maximumKeyLength) printable ASCII characters")
        }
        return key
    }
}
