import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The app's connection to a Storefront backend: list products, open a
/// hosted checkout, learn when the purchase arrived, and read, observe,
/// cancel and resume what the user is entitled to.
///
/// ```swift
/// let storefront = StorefrontClient(baseURL: URL(string: "https://shop.example.com")!) {
///     try await auth.currentIDToken()          // the app user's JWT
/// }
/// let products = try await storefront.products()
/// let checkout = try await storefront.createCheckout(for: products[0])
/// openURL(checkout.url)                         // the provider's hosted page
/// if case .purchased = try await storefront.awaitPurchase(checkoutID: checkout.checkoutID) { unlock() }
/// ```
///
/// Every call throws ``StorefrontError``. The client is an actor: share one
/// instance across the app. Caches: products (`ETag`, in memory and
/// optionally on disk), status (``Options/entitlementsLifetime``), and the
/// last entitlements answer, in memory and on disk
/// (``Options/entitlementsDirectory``), which answers when the server cannot
/// be reached (``FetchPolicy/cachedOrFetched``; see ``EntitlementsSnapshot``
/// for how a cached answer is judged). They belong to the token's subject:
/// when a token for another user arrives, the user's caches are dropped, on
/// disk too (call ``reset()`` on sign-out). Entitlements refresh on their own
/// while a stream of ``entitlementSnapshots()`` is open and when the app
/// returns to the foreground.
///
/// An app that lets people buy before they sign in starts the client with
/// ``AppUser/anonymous`` (``init(baseURL:session:options:appUser:)``): it then
/// acts for a Storefront anonymous user, and ``logIn(appUserID:tokenProvider:)``
/// later moves that user's purchases to the signed-in one.
public actor StorefrontClient {
    /// Returns the signed-in app user's token (a JWT the backend accepts),
    /// refreshed by the app as needed. Called before every authenticated
    /// request, and once more after a 401.
    public typealias TokenProvider = @Sendable () async throws -> String

    /// Whom the client acts for: the app's signed-in user, or, before anyone
    /// signs in, a Storefront anonymous user.
    public enum AppUser: Sendable {
        /// The app's signed-in user, whose tokens `TokenProvider` returns.
        case signedIn(TokenProvider)
        /// A Storefront anonymous user (`POST /api/anonymous`), created at the
        /// first request that needs a token and kept in
        /// ``Options/anonymousIdentityStore`` (the keychain on Apple
        /// platforms), so purchases made before sign-in survive a relaunch.
        /// ``StorefrontClient/logIn(appUserID:tokenProvider:)`` ends it.
        case anonymous
    }

    /// The gateway's root URL (the one that serves `/api/…`).
    public nonisolated let baseURL: URL
    /// How this client caches, retries and recognises return links.
    public nonisolated let options: Options

    private let session: URLSession
    /// Whom requests are made for; ``logIn(appUserID:tokenProvider:)`` and ``logOut()`` change it.
    var appUser: AppUser
    /// Where the anonymous user is kept between launches.
    let anonymousStore: any AnonymousIdentityStore
    /// The anonymous user, once read from ``anonymousStore`` or created.
    var anonymousIdentity: AnonymousIdentity?
    /// Whether ``anonymousStore`` was read (it is read once; the client keeps it up to date).
    var anonymousStoreRead = false
    /// The running `POST /api/anonymous`, so concurrent requests create one anonymous user, not several.
    var anonymousCreation: Task<Result<AnonymousIdentity, StorefrontError>, Never>?
    /// Bumped when the anonymous user is forgotten, so a creation that was
    /// under way then is not kept.
    var anonymousGeneration = 0
    private let diskCache: ProductDiskCache?
    /// The last entitlements answer per user on disk; nil keeps it in memory only.
    let entitlementsDisk: EntitlementDiskCache?
    /// Calls ``applicationWillEnterForeground()`` when the app returns to the foreground.
    nonisolated let foreground: ForegroundObserver

    private var productsEntry: ProductsEntry?
    /// `GET /api/app-config`'s last answer and its tag.
    var appConfigEntry: (etag: String?, config: AppConfig)?
    private var diskCacheLoaded = false
    /// `GET /api/products/{id}` answers with their `ETag`s.
    private var productEntries: [String: ProductEntry] = [:]
    /// The signed-in user's last entitlements answer (the server's list as it said it).
    var entitlementsEntry: CachedEntitlements?
    /// Set when something changed on the server (a return link, a cancel):
    /// the next read asks the server even though ``entitlementsEntry`` is fresh.
    var entitlementsNeedReload = false
    private var statusEntry: Fresh<SubscriptionStatus>?
    /// The token subject the user caches belong to.
    var owner: String?
    /// ``EntitlementDiskCache/userKey(subject:)`` of the owner, when the token has a `sub`.
    var ownerKey: String?
    /// Bumped whenever the user caches are dropped, so an answer for the
    /// previous user that arrives late is not stored.
    var userGeneration = 0
    /// The last tokens the provider gave, so log messages can be scrubbed of them.
    var recentTokens: [String] = []
    var published: [EntitlementInfo]?
    var publishedSnapshot: EntitlementsSnapshot?
    var observers: [UUID: AsyncStream<[EntitlementInfo]>.Continuation] = [:]
    var snapshotObservers: [UUID: AsyncStream<EntitlementsSnapshot>.Continuation] = [:]
    /// The periodic refresh, running while a stream is open.
    var refreshTask: Task<Void, Never>?
    /// The live stream's loop (``Options/liveChanges``), running while a
    /// purchase is awaited or an entitlement stream is open.
    var liveChangesTask: Task<Void, Never>?
    /// Whether the live stream is believed to work (its last poll did not
    /// fail): a purchase wait then pauses ``Options/liveChangesPollInterval``.
    var liveChangesConnected = false
    /// The checkouts this client opened and has not finished waiting for, by id.
    var checkouts: [String: OpenCheckout] = [:]
    /// When the app reported each checkout's page closed (``checkoutClosed(checkoutID:)``).
    private var closedCheckouts: [String: ContinuousClock.Instant] = [:]
    /// Checkouts a return link arrived for while they were open or awaited.
    private var returnedCheckouts: Set<String> = []
    /// The checkouts an ``awaitCheckout(_:timeout:)`` or ``awaitPurchase(checkoutID:timeout:)`` waits for.
    var waiting: Set<String> = []
    private var sleepers: [UUID: CheckedContinuation<Void, Never>] = [:]
    private var pausing: Set<UUID> = []
    private var earlyWakes: Set<UUID> = []

    /// Creates a client for a signed-in app user.
    ///
    /// - Parameters:
    ///   - baseURL: the gateway's root, e.g. `https://shop.example.com`.
    ///   - session: the `URLSession` to use; by default an ephemeral one without
    ///     `URLCache` (the client does its own caching).
    ///   - options: caching, refreshing, retries, return links and logging.
    ///   - tokenProvider: returns the app user's JWT.
    public init(
        baseURL: URL, session: URLSession? = nil, options: Options = Options(),
        tokenProvider: @escaping TokenProvider
    ) {
        self.init(baseURL: baseURL, session: session, options: options, appUser: .signedIn(tokenProvider))
    }

    /// Creates a client for a signed-in user or, for an app that lets people
    /// buy before they sign in, for a Storefront anonymous user until
    /// ``logIn(appUserID:tokenProvider:)``.
    ///
    /// ```swift
    /// let storefront = StorefrontClient(baseURL: shopURL, appUser: auth.isSignedIn ? .signedIn(auth.idToken) : .anonymous)
    /// ```
    /// - Parameters:
    ///   - baseURL: the gateway's root, e.g. `https://shop.example.com`.
    ///   - session: the `URLSession` to use; by default an ephemeral one without `URLCache`.
    ///   - options: caching, refreshing, retries, return links, logging, and
    ///     where the anonymous user is kept (``Options/anonymousIdentityStore``).
    ///   - appUser: ``AppUser/signedIn(_:)`` with the app's token provider, or ``AppUser/anonymous``.
    public init(baseURL: URL, session: URLSession? = nil, options: Options = Options(), appUser: AppUser) {
        self.baseURL = baseURL
        self.options = options
        self.session = session ?? Self.makeSession(timeout: options.requestTimeout)
        self.appUser = appUser
        anonymousStore =
            options.anonymousIdentityStore ?? Self.defaultAnonymousIdentityStore(baseURL: baseURL, directory: options.entitlementsDirectory)
        diskCache = options.cacheDirectory.map { ProductDiskCache(directory: $0, baseURL: baseURL) }
        entitlementsDisk = options.entitlementsDirectory.map { EntitlementDiskCache(directory: $0, baseURL: baseURL) }
        let foreground = ForegroundObserver()
        self.foreground = foreground
        if options.refreshesOnForeground {
            foreground.observe(ForegroundObserver.platformNotifications, on: .default) { [weak self] in
                await self?.applicationWillEnterForeground()
            }
        }
    }

    deinit {
        for observer in observers.values { observer.finish() }
        for observer in snapshotObservers.values { observer.finish() }
        for sleeper in sleepers.values { sleeper.resume() }
        refreshTask?.cancel()
        liveChangesTask?.cancel()
    }

    // MARK: - Products

    /// The products for sale (`GET /api/products`; no token needed).
    ///
    /// The list is kept with its `ETag`, in memory and in
    /// ``Options/cacheDirectory`` when set; asking again sends
    /// `If-None-Match`, and an unchanged list comes back as a bodiless 304.
    /// - Parameter cachePolicy: ``CachePolicy/reload`` (default) revalidates
    ///   with the server; ``CachePolicy/returnCacheIfFresh`` answers from the
    ///   cache while it is younger than ``Options/productsLifetime``.
    public func products(cachePolicy: CachePolicy = .reload) async throws(StorefrontError) -> [Product] {
        loadDiskCacheOnce()
        if cachePolicy == .returnCacheIfFresh, let entry = productsEntry,
            Date().timeIntervalSince(entry.savedAt) < options.productsLifetime.timeInterval
        {
            return entry.products
        }
        var headers: [String: String] = [:]
        if let etag = productsEntry?.etag { headers["If-None-Match"] = etag }
        let reply = try await send("GET", "api/products", headers: headers, authenticated: false)
        if reply.response.statusCode == 304 {
            guard var entry = productsEntry else {
                throw .invalidResponse(message: "The server answered 304 Not Modified but no product list is cached")
            }
            entry.savedAt = Date()
            productsEntry = entry
            return entry.products
        }
        let list = try decode(ProductListBody.self, reply.data, what: "product list").products.data
        let entry = ProductsEntry(etag: reply.response.value(forHTTPHeaderField: "ETag"), savedAt: Date(), body: reply.data, products: list)
        productsEntry = entry
        diskCache?.save(entry)
        return list
    }

    /// One product (`GET /api/products/{id}`; no token needed), e.g. the one
    /// an entitlement names (``EntitlementInfo/productID``) or a deep link
    /// points at.
    ///
    /// Each product is kept with its `ETag`: asking again sends
    /// `If-None-Match`, and an unchanged product comes back as a bodiless 304.
    /// - Parameters:
    ///   - id: ``Product/id``, as the product list or an entitlement names it.
    ///   - cachePolicy: ``CachePolicy/reload`` (default) revalidates with the
    ///     server; ``CachePolicy/returnCacheIfFresh`` answers while the product
    ///     (or a product list holding it) is younger than ``Options/productsLifetime``.
    /// - Throws: ``StorefrontError/notFound(message:)`` when the catalog has no such product.
    public func product(id: String, cachePolicy: CachePolicy = .reload) async throws(StorefrontError) -> Product {
        let now = Date()
        let lifetime = options.productsLifetime.timeInterval
        if cachePolicy == .returnCacheIfFresh {
            if let entry = productEntries[id], now.timeIntervalSince(entry.savedAt) < lifetime { return entry.product }
            loadDiskCacheOnce()
            if let list = productsEntry, now.timeIntervalSince(list.savedAt) < lifetime, let product = list.products.first(where: { $0.id == id }) {
                return product
            }
        }
        guard !id.isEmpty, let escaped = id.addingPercentEncoding(withAllowedCharacters: Self.pathSegmentAllowed) else {
            throw .notFound(message: "No product has an empty id")
        }
        var headers: [String: String] = [:]
        if let etag = productEntries[id]?.etag { headers["If-None-Match"] = etag }
        let reply = try await send("GET", "api/products/\(escaped)", headers: headers, authenticated: false)
        if reply.response.statusCode == 304, var entry = productEntries[id] {
            entry.savedAt = Date()
            productEntries[id] = entry
            return entry.product
        }
        let product = try decode(ProductBody.self, reply.data, what: "product").product
        productEntries[id] = ProductEntry(etag: reply.response.value(forHTTPHeaderField: "ETag"), savedAt: Date(), product: product)
        return product
    }

    /// The characters a path segment keeps unescaped (RFC 3986 `pchar` less `/`).
    static let pathSegmentAllowed: CharacterSet = {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/;")
        return allowed
    }()

    // MARK: - Checkout

    /// Opens a hosted checkout for a variant (`POST /api/create-checkout`).
    ///
    /// Each call is one attempt with its own `Idempotency-Key`; when the
    /// network fails or the server reports that attempt still in progress
    /// (409), the same request is sent again with the same key (up to
    /// ``Options/checkoutAttempts`` times), so the server creates at most
    /// one checkout per call.
    /// - Parameters:
    ///   - variantID: ``Product/variantID``.
    ///   - email: pre-fills the provider's form; must be the signed-in user's
    ///     when given (the purchase belongs to the token's user either way).
    /// - Returns: the URL to open and the id ``awaitPurchase(checkoutID:timeout:)`` takes.
    public func createCheckout(variantID: String, email: String? = nil) async throws(StorefrontError) -> CheckoutSession {
        try await openCheckout(variantID: variantID, productID: nil, expectsSubscription: false, email: email, offer: CheckoutOffer())
    }

    /// Opens a hosted checkout for a variant with a promotion code, a trial
    /// or the buyer's language (``CheckoutOffer``). A provider that cannot
    /// take them, or refuses the code, answers 422: ``StorefrontError``
    /// carries the server's code (`promotion_codes_unsupported`,
    /// `trial_unsupported`, `promotion_code_refused`, …).
    /// See ``createCheckout(variantID:email:)``.
    public func createCheckout(variantID: String, email: String? = nil, offer: CheckoutOffer) async throws(StorefrontError) -> CheckoutSession {
        try await openCheckout(variantID: variantID, productID: nil, expectsSubscription: false, email: email, offer: offer)
    }

    /// Opens a hosted checkout for `product` (its variant, naming the product too).
    /// See ``createCheckout(variantID:email:)``.
    public func createCheckout(for product: Product, email: String? = nil) async throws(StorefrontError) -> CheckoutSession {
        try await createCheckout(for: product, email: email, offer: CheckoutOffer())
    }

    /// Opens a hosted checkout for `product` with an offer; check
    /// ``Product/acceptsPromotionCodes`` and ``Product/checkoutSetsTrial``
    /// first. See ``createCheckout(variantID:email:offer:)``.
    public func createCheckout(for product: Product, email: String? = nil, offer: CheckoutOffer) async throws(StorefrontError) -> CheckoutSession {
        try await openCheckout(
            variantID: product.variantID, productID: product.id, expectsSubscription: product.isSubscription, email: email, offer: offer)
    }

    func openCheckout(
        variantID: String, productID: String?, expectsSubscription: Bool,
        email: String?, offer: CheckoutOffer, permit: WebCheckoutPermit? = nil
    ) async throws(StorefrontError) -> CheckoutSession {
        let key = UUID().uuidString.lowercased()
        let email = email.flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 }
        let body = try Self.encode(
            CheckoutRequestBody(
                variantId: variantID, productId: productID, customerEmail: email, promotionCode: offer.promotionCode, trialDays: offer.trialDays,
                locale: offer.locale, storefront: permit?.storefront, externalPurchaseToken: permit?.externalPurchaseToken))
        // What the user had before this checkout, to tell its purchase apart later.
        async let baseline = baselineEntitlements()
        var attempt = 1
        while true {
            do throws(StorefrontError) {
                let reply = try await send("POST", "api/create-checkout", body: body, headers: ["Idempotency-Key": key])
                let answer = try decode(CheckoutBody.self, reply.data, what: "checkout")
                guard let url = URL(string: answer.checkoutUrl), url.scheme != nil else {
                    throw StorefrontError.invalidResponse(message: "The checkout URL is not a URL: \(answer.checkoutUrl.prefix(80))")
                }
                let checkout = CheckoutSession(
                    url: url, checkoutID: answer.checkoutId ?? key, provider: answer.provider, expiresAt: answer.expiresAt,
                    createdAt: Self.serverDate(reply.response) ?? Date(), idempotencyKey: key)
                let before = await baseline
                if reply.generation == userGeneration {
                    checkouts[checkout.checkoutID] = OpenCheckout(session: checkout, baseline: before, expectsSubscription: expectsSubscription)
                    statusEntry = nil // it now lists a pending checkout
                }
                return checkout
            } catch {
                guard attempt < options.checkoutAttempts, Self.worthRepeating(error) else {
                    _ = await baseline
                    throw error
                }
                attempt += 1
                do {
                    try await Task.sleep(for: .milliseconds(500 * attempt))
                } catch {
                    _ = await baseline
                    throw .cancelled
                }
            }
        }
    }

    /// The same request with the same key is safe to send again after these.
    static func worthRepeating(_ error: StorefrontError) -> Bool {
        switch error {
        case .network: true
        case .server(let status, _): status == 409
        default: false
        }
    }

    /// The user's entitlements before a checkout: the fresh cache, else the server's; nil when unknown.
    private func baselineEntitlements() async -> [EntitlementInfo]? {
        try? await entitlements(cachePolicy: .returnCacheIfFresh)
    }

    // MARK: - Waiting for the purchase

    /// Waits until the buyer's visit to the hosted checkout ends, and says how:
    /// ``CheckoutOutcome/purchased(_:)``, ``CheckoutOutcome/pending`` or
    /// ``CheckoutOutcome/cancelled``. Call it right after opening
    /// ``CheckoutSession/url``; report the page closing with
    /// ``checkoutClosed(checkoutID:)``.
    ///
    /// It polls `GET /api/subscription/status` with backoff
    /// (``Options/pollInitialDelay`` doubling up to ``Options/pollMaximumDelay``);
    /// ``handleRedirect(_:)``, ``checkoutClosed(checkoutID:)`` and the app's
    /// return to the foreground cut the current pause short. The purchase
    /// counts as arrived when the server no longer lists the checkout as
    /// pending and an entitlement became active (or renewed) since it was
    /// opened; for a checkout opened with ``createCheckout(for:email:)`` for a
    /// subscription product, an entitlement the subscription grants.
    ///
    /// ```swift
    /// let checkout = try await storefront.createCheckout(for: product)
    /// present(SFSafariViewController(url: checkout.url))
    /// // SFSafariViewControllerDelegate.safariViewControllerDidFinish:
    /// //     storefront.checkoutClosed(checkout)
    /// switch try await storefront.awaitCheckout(checkout) {
    /// case .purchased(let granted): unlock(granted)
    /// case .pending: showProcessing()        // entitlementSnapshots() reports it when it lands
    /// case .cancelled: enableBuyButton()
    /// }
    /// ```
    ///
    /// Network failures and provider outages while polling are retried until
    /// the timeout; other errors (e.g. ``StorefrontError/unauthorized(message:)``) are thrown.
    /// - Parameters:
    ///   - checkout: what ``createCheckout(for:email:)`` returned.
    ///   - timeout: how long to wait at most (default 5 minutes).
    /// - Returns: ``CheckoutOutcome/purchased(_:)`` with the new entitlements;
    ///   ``CheckoutOutcome/cancelled`` when the page was reported closed and no
    ///   payment showed within ``Options/checkoutClosedGrace``, or the checkout
    ///   expired unpaid; ``CheckoutOutcome/pending`` when the timeout passed,
    ///   or the page closed after the return link arrived (the buyer paid; the
    ///   purchase is still on its way).
    public func awaitCheckout(_ checkout: CheckoutSession, timeout: Duration = .seconds(300)) async throws(StorefrontError) -> CheckoutOutcome {
        try await awaitCheckout(checkoutID: checkout.checkoutID, timeout: timeout)
    }

    /// ``awaitCheckout(_:timeout:)`` by ``CheckoutSession/checkoutID``. For a
    /// checkout this client did not open, a change from the first answer counts.
    public func awaitCheckout(checkoutID: String, timeout: Duration = .seconds(300)) async throws(StorefrontError) -> CheckoutOutcome {
        let outcome: CheckoutOutcome =
            switch try await waitForCheckout(checkoutID, timeout: timeout, honoursClose: true) {
            case .purchased(let granted): .purchased(granted)
            case .expired: .cancelled
            case .timedOut: .pending
            case .closed(let returned): returned ? .pending : .cancelled
            }
        log(.info, "checkout \(checkoutID): \(outcome)")
        return outcome
    }

    /// Tells the client that the page of a checkout was closed: the web view
    /// or `SFSafariViewController` was dismissed (its delegate's
    /// `safariViewControllerDidFinish`), `ASWebAuthenticationSession` ended
    /// with `canceledLogin`, or the app came back from the browser. A running
    /// ``awaitCheckout(_:timeout:)`` then looks once more, and for up to
    /// ``Options/checkoutClosedGrace`` (a payment made just before closing),
    /// and answers ``CheckoutOutcome/cancelled`` if no payment shows, so the
    /// buy button is not left disabled. Entitlements are refreshed too.
    /// Safe to call from any thread, more than once, and before the wait starts.
    public nonisolated func checkoutClosed(checkoutID: String) {
        Task { await self.markClosed(checkoutID) }
    }

    /// ``checkoutClosed(checkoutID:)`` for `checkout`.
    public nonisolated func checkoutClosed(_ checkout: CheckoutSession) {
        checkoutClosed(checkoutID: checkout.checkoutID)
    }

    func markClosed(_ checkoutID: String) async {
        guard closedCheckouts[checkoutID] == nil else { return }
        closedCheckouts[checkoutID] = .now
        log(.debug, "checkout \(checkoutID): the app reported its page closed")
        if waiting.contains(checkoutID) {
            wakeAll()
        } else {
            invalidateUserReads()
            await refresh(reason: "checkout page closed")
        }
    }

    /// Waits until the purchase made through a checkout shows up, polling
    /// `GET /api/subscription/status` with backoff (``Options/pollInitialDelay``
    /// doubling up to ``Options/pollMaximumDelay``). Call it when the web view
    /// closes; ``handleRedirect(_:)`` cuts the current pause short.
    ///
    /// The older form of ``awaitCheckout(_:timeout:)``, which also ends early
    /// when the page is closed without paying; this one ignores
    /// ``checkoutClosed(checkoutID:)`` and waits for the timeout.
    ///
    /// The purchase counts as arrived when the server no longer lists the
    /// checkout as pending and an entitlement became active (or renewed) since
    /// it was opened; for a checkout opened with ``createCheckout(for:email:)``
    /// for a subscription product, an entitlement the subscription grants.
    /// Network failures and provider outages while polling are
    /// retried until the timeout; other errors (e.g. ``StorefrontError/unauthorized(message:)``) are thrown.
    /// - Parameters:
    ///   - checkoutID: ``CheckoutSession/checkoutID``. For a checkout this
    ///     client did not open, a change from the first answer counts.
    ///   - timeout: how long to wait (default 5 minutes).
    /// - Returns: ``PurchaseOutcome/purchased(_:)`` with the new entitlements,
    ///   ``PurchaseOutcome/expired`` when the checkout expired unpaid, or
    ///   ``PurchaseOutcome/timedOut``.
    public func awaitPurchase(checkoutID: String, timeout: Duration = .seconds(300)) async throws(StorefrontError) -> PurchaseOutcome {
        switch try await waitForCheckout(checkoutID, timeout: timeout, honoursClose: false) {
        case .purchased(let granted): .purchased(granted)
        case .expired: .expired
        case .timedOut, .closed: .timedOut
        }
    }

    /// Waits for the purchase of `checkout`; see ``awaitPurchase(checkoutID:timeout:)``.
    public func awaitPurchase(_ checkout: CheckoutSession, timeout: Duration = .seconds(300)) async throws(StorefrontError) -> PurchaseOutcome {
        try await awaitPurchase(checkoutID: checkout.checkoutID, timeout: timeout)
    }

    /// How a wait for a checkout ended.
    enum WaitEnd: Hashable, Sendable {
        case purchased([EntitlementInfo])
        case expired
        case timedOut
        /// The app reported the page closed and the grace passed with no
        /// purchase; `returned`: a return link had arrived.
        case closed(returned: Bool)
    }

    private func waitForCheckout(_ checkoutID: String, timeout: Duration, honoursClose: Bool) async throws(StorefrontError) -> WaitEnd {
        waiting.insert(checkoutID)
        liveChangesNeeded()
        defer {
            waiting.remove(checkoutID)
            liveChangesNeeded()
        }
        let deadline = ContinuousClock.now + timeout
        let known = checkouts[checkoutID]
        var baseline = known?.baseline
        var openedAt = known?.session.createdAt
        var expiresAt = known?.session.expiresAt
        var sawPending = false
        var firstLook = true
        var sawClosed = false
        var delay = options.pollInitialDelay
        while true {
            if Task.isCancelled { throw .cancelled }
            // Read before the request: a close reported while it runs is judged after the next one.
            let closedAt = honoursClose ? closedCheckouts[checkoutID] : nil
            do {
                let status = try await status(cachePolicy: .reload)
                if let pending = status.pendingCheckout, pending.checkoutID == checkoutID {
                    sawPending = true
                    openedAt = pending.createdAt
                    expiresAt = pending.expiresAt ?? expiresAt
                } else {
                    if baseline == nil, openedAt == nil, firstLook {
                        baseline = status.entitlements // an unknown checkout: judge by change from now on
                    } else if let granted = Self.granted(
                        status.entitlements, since: baseline, openedAt: openedAt,
                        clearedPending: sawPending && status.pendingCheckout == nil
                    )
                    .flatMap({ Self.ofKind($0, subscription: known?.expectsSubscription == true) }) {
                        forgetCheckout(checkoutID)
                        return .purchased(granted)
                    }
                    if let expiresAt, Date() >= expiresAt {
                        forgetCheckout(checkoutID)
                        return .expired
                    }
                }
                firstLook = false
            } catch {
                switch error {
                case .network, .providerUnavailable: break // keep trying until the deadline (or the close's grace)
                default: throw error
                }
            }
            var left = deadline - ContinuousClock.now
            if let closedAt {
                let graceLeft = options.checkoutClosedGrace - (ContinuousClock.now - closedAt)
                if graceLeft <= .zero {
                    let returned = returnedCheckouts.contains(checkoutID)
                    forgetCheckout(checkoutID)
                    return .closed(returned: returned)
                }
                if !sawClosed {
                    sawClosed = true
                    delay = options.pollInitialDelay // look again soon: the payment may be a moment away
                }
                left = min(left, graceLeft)
            }
            guard deadline - ContinuousClock.now > .zero else { return .timedOut }
            if honoursClose, closedAt == nil, closedCheckouts[checkoutID] != nil { continue } // closed meanwhile: look again now
            // With the live stream up, a change wakes the pause (wakeAll): the
            // long pause is only the net under a change the stream missed.
            await pause(min(liveChangesConnected ? options.liveChangesPollInterval : delay, left))
            delay = min(delay * 2, options.pollMaximumDelay)
        }
    }

    /// Forgets what was kept about a checkout whose wait ended.
    private func forgetCheckout(_ checkoutID: String) {
        checkouts[checkoutID] = nil
        closedCheckouts[checkoutID] = nil
        returnedCheckouts.remove(checkoutID)
    }

    /// `granted` as the purchase of a subscription product: only what a
    /// subscription grants, nil while none does. A Lemon Squeezy subscription's
    /// `order_created` may be projected a moment before its
    /// `subscription_created`, and in that moment the order alone grants like
    /// a one-time purchase; waiting for the subscription answers with what
    /// the app will keep seeing.
    static func ofKind(_ granted: [EntitlementInfo], subscription: Bool) -> [EntitlementInfo]? {
        guard subscription else { return granted }
        let fromSubscription = granted.filter { $0.source == .subscription }
        return fromSubscription.isEmpty ? nil : fromSubscription
    }

    /// The active entitlements a checkout's payment explains, or nil when none yet.
    static func granted(
        _ entitlements: [EntitlementInfo], since baseline: [EntitlementInfo]?, openedAt: Date?,
        clearedPending: Bool
    ) -> [EntitlementInfo]? {
        let active = entitlements.filter(\.isActive)
        guard !active.isEmpty else { return nil }
        var found: [EntitlementInfo] = []
        if let baseline {
            for entitlement in active {
                let before = baseline.first { $0.identifier == entitlement.identifier }
                let renewed = (entitlement.latestPurchaseAt ?? .distantPast) > (before?.latestPurchaseAt ?? .distantPast)
                if before?.isActive != true || renewed || before?.productID != entitlement.productID { found.append(entitlement) }
            }
        } else if let openedAt {
            // The server's clock: allow for the Date header's whole seconds.
            found = active.filter { ($0.latestPurchaseAt ?? .distantPast) >= openedAt.addingTimeInterval(-1) }
        }
        if found.isEmpty, clearedPending {
            // The server saw a payment after the checkout (it stopped being
            // pending before expiring), though no entitlement changed shape.
            found = active
        }
        return found.isEmpty ? nil : found
    }

    // MARK: - Status

    /// The user's subscription, entitlements and pending checkout
    /// (`GET /api/subscription/status`); cached in memory for
    /// ``Options/entitlementsLifetime``. Its entitlements refresh the
    /// entitlements cache (memory and disk) too. Not answered from disk:
    /// offline, read ``entitlementsSnapshot(fetchPolicy:)``.
    public func status(cachePolicy: CachePolicy = .returnCacheIfFresh) async throws(StorefrontError) -> SubscriptionStatus {
        if cachePolicy == .returnCacheIfFresh {
            _ = try await currentToken()
            if let entry = statusEntry, entry.isFresh(options.entitlementsLifetime) { return entry.value }
        }
        let reply = try await send("GET", "api/subscription/status")
        let status = try decode(SubscriptionStatus.self, reply.data, what: "subscription status")
        if reply.generation == userGeneration { statusEntry = Fresh(status) }
        store(entitlements: status.entitlements, reply: reply)
        return status
    }

    // MARK: - Cancel and resume

    /// Cancels a subscription at the end of its paid period
    /// (`POST /api/subscription/cancel`); access stays until then.
    /// - Parameter subscriptionCode: which one; nil takes ``SubscriptionStatus/subscriptionCode``
    ///   from ``status(cachePolicy:)``.
    /// - Throws: ``StorefrontError/notFound(message:)`` when there is none.
    @discardableResult
    public func cancel(subscriptionCode: String? = nil) async throws(StorefrontError) -> SubscriptionChange {
        try await command("cancel", subscriptionCode)
    }

    /// Undoes a cancellation while the paid period lasts (`POST /api/subscription/resume`).
    /// - Parameter subscriptionCode: which one; nil takes the status's.
    @discardableResult
    public func resume(subscriptionCode: String? = nil) async throws(StorefrontError) -> SubscriptionChange {
        try await command("resume", subscriptionCode)
    }

    private func command(_ action: String, _ code: String?) async throws(StorefrontError) -> SubscriptionChange {
        var code = code
        var emailToken: String?
        if code == nil {
            let status = try await status()
            code = status.subscriptionCode
            emailToken = status.emailToken
        } else if let cached = statusEntry?.value, cached.subscriptionCode == code {
            emailToken = cached.emailToken
        }
        guard let code, !code.isEmpty else { throw .notFound(message: "There is no subscription to \(action)") }
        let body = try Self.encode(SubscriptionCommandBody(subscriptionCode: code, emailToken: emailToken))
        let reply = try await send("POST", "api/subscription/\(action)", body: body)
        let change = try decode(SubscriptionChange.self, reply.data, what: action)
        invalidateUserReads()
        // The projection takes a moment to show the change; then tell observers.
        Task { [weak self] in
            try? await Task.sleep(for: .seconds(1))
            _ = try? await self?.entitlements(cachePolicy: .reload)
        }
        return change
    }

    // MARK: - Customer portal

    /// A fresh link to the provider's customer portal, where the user updates
    /// the card, sees invoices or cancels (`GET /api/subscription/portal`).
    /// The server fetches it from the provider for each call — Lemon
    /// Squeezy's signed portal links expire — so open it at once rather than
    /// keeping it (``SubscriptionStatus/customerPortalURL`` is a stored copy that may have expired).
    /// - Parameter subscriptionCode: which subscription; nil takes
    ///   ``SubscriptionStatus/subscriptionCode`` from ``status(cachePolicy:)``.
    /// - Throws: ``StorefrontError/notFound(message:)`` when the user has no
    ///   such subscription; ``StorefrontError/providerUnavailable(message:retryAfter:)``
    ///   when the provider refused or cannot be reached.
    public func customerPortal(subscriptionCode: String? = nil) async throws(StorefrontError) -> CustomerPortalLink {
        var code = subscriptionCode?.trimmingCharacters(in: .whitespaces)
        if code == nil || code?.isEmpty == true { code = try await status().subscriptionCode }
        guard let code, !code.isEmpty else { throw .notFound(message: "There is no subscription to manage") }
        guard let escaped = code.addingPercentEncoding(withAllowedCharacters: Self.queryValueAllowed) else {
            throw .notFound(message: "There is no subscription to manage")
        }
        let reply = try await send("GET", "api/subscription/portal?subscription_code=\(escaped)")
        return try decode(CustomerPortalLink.self, reply.data, what: "customer portal")
    }

    /// The characters a query value keeps unescaped.
    static let queryValueAllowed: CharacterSet = {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+#?")
        return allowed
    }()

    // MARK: - Returning from the checkout

    /// Recognises the link the buyer returns to the app with (one of
    /// ``Options/returnURLs``, or the gateway's `/checkout/complete` page)
    /// and, if it is one, refreshes entitlements and wakes a running
    /// ``awaitCheckout(_:timeout:)`` at once (which then answers
    /// ``CheckoutOutcome/pending`` rather than ``CheckoutOutcome/cancelled``
    /// if the page is closed before the purchase shows: the buyer reached the
    /// return link, so they paid). Call it from the app's URL handler
    /// (SwiftUI: `.onOpenURL { storefront.handleRedirect($0) }`).
    /// - Returns: whether `url` was a checkout return link (false: handle it yourself).
    @discardableResult
    public nonisolated func handleRedirect(_ url: URL) -> Bool {
        guard isReturnURL(url) else { return false }
        Task { await self.checkoutReturned() }
        return true
    }

    /// Whether `url` is a checkout return link (see ``handleRedirect(_:)``); nothing else happens.
    public nonisolated func isReturnURL(_ url: URL) -> Bool {
        let completionPage = URL(string: Self.join(baseURL, "checkout/complete"))
        return (options.returnURLs + [completionPage].compactMap { $0 }).contains { Self.matches(url, $0) }
    }

    static func matches(_ url: URL, _ pattern: URL) -> Bool {
        guard url.scheme?.lowercased() == pattern.scheme?.lowercased(),
            url.host?.lowercased() == pattern.host?.lowercased(), url.port == pattern.port
        else { return false }
        let prefix = pattern.path.hasSuffix("/") ? String(pattern.path.dropLast()) : pattern.path
        let path = url.path
        return prefix.isEmpty || path == prefix || path.hasPrefix(prefix + "/")
    }

    func checkoutReturned() async {
        log(.info, "checkout return link: refreshing entitlements")
        returnedCheckouts.formUnion(checkouts.keys)
        returnedCheckouts.formUnion(waiting)
        invalidateUserReads()
        wakeAll()
        _ = try? await entitlements(cachePolicy: .reload)
    }

    // MARK: - Users

    /// Forgets everything about the signed-in user — entitlements (in memory
    /// and on disk), status, open checkouts — and reports an empty entitlement
    /// list to observers (a snapshot whose ``EntitlementsSnapshot/source`` is
    /// ``EntitlementsSnapshot/Source/unknown``). Call it on sign-out. Products stay cached.
    public func reset() {
        dropUserCaches()
        owner = nil
        ownerKey = nil
        recentTokens = []
        log(.info, "signed out: the user's cached entitlements were removed")
        publish(.nobody(at: options.clock.now))
    }

    /// Drops the user's caches, in memory and on disk.
    func dropUserCaches() {
        entitlementsEntry = nil
        entitlementsNeedReload = false
        statusEntry = nil
        checkouts = [:]
        closedCheckouts = [:]
        returnedCheckouts = []
        userGeneration += 1
        entitlementsDisk?.removeAll()
    }

    /// The next read asks the server (the cached entitlements stay, as the
    /// answer when the server cannot be reached).
    func invalidateUserReads() {
        entitlementsNeedReload = true
        statusEntry = nil
    }

    // MARK: - Pauses that a return link can cut short

    private func pause(_ duration: Duration) async {
        let id = UUID()
        pausing.insert(id)
        let timer = Task { [weak self] in
            do { try await Task.sleep(for: duration) } catch { return }
            await self?.wake(id)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if earlyWakes.remove(id) != nil {
                    continuation.resume()
                } else {
                    sleepers[id] = continuation
                }
            }
        } onCancel: {
            Task { [weak self] in await self?.wake(id) }
        }
        timer.cancel()
        pausing.remove(id)
        earlyWakes.remove(id)
    }

    private func wake(_ id: UUID) {
        if let sleeper = sleepers.removeValue(forKey: id) {
            sleeper.resume()
        } else if pausing.contains(id) {
            earlyWakes.insert(id)
        }
    }

    func wakeAll() {
        let all = sleepers
        sleepers = [:]
        for sleeper in all.values { sleeper.resume() }
    }

    // MARK: - HTTP

    /// One answer, with the user generation it was asked under.
    struct Reply: Sendable {
        var data: Data
        var response: HTTPURLResponse
        var generation: Int
    }

    /// Sends a request; 2xx, 304 and the statuses in `accepting` come back,
    /// other statuses are thrown as ``StorefrontError``.
    /// - Parameters:
    ///   - authenticated: sends the current user's token (``currentToken()``).
    ///   - bearer: sends this token instead, as it is (no second try after a
    ///     401): a call made for a user the client does not act for yet.
    ///   - accepting: error statuses the caller reads as answers (e.g. a 409 that is an outcome).
    func send(
        _ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:],
        authenticated: Bool = true, bearer: String? = nil, accepting: Set<Int> = []
    ) async throws(StorefrontError) -> Reply {
        var token = bearer
        if authenticated, bearer == nil { token = try await currentToken() }
        let generation = userGeneration
        var (data, response) = try await loggedTransfer(method, path, body: body, headers: headers, token: token)
        if response.statusCode == 401, bearer == nil, let used = token {
            // The token may have expired in between; retry once if the app has a newer one.
            let fresh = try await currentToken()
            if fresh != used {
                (data, response) = try await loggedTransfer(method, path, body: body, headers: headers, token: fresh)
            }
        }
        guard (200..<300).contains(response.statusCode) || response.statusCode == 304 || accepting.contains(response.statusCode) else {
            let error = StorefrontError.from(status: response.statusCode, body: data, retryAfter: response.value(forHTTPHeaderField: "Retry-After"))
            let level: StorefrontLogLevel = response.statusCode == 401 || response.statusCode == 403 ? .error : .warning
            log(level, "\(method) /\(Self.pathOnly(path)) failed: \(error)")
            throw error
        }
        return Reply(data: data, response: response, generation: generation)
    }

    /// ``transfer(_:_:body:headers:token:)``, logged (never the token).
    private func loggedTransfer(
        _ method: String, _ path: String, body: Data?, headers: [String: String],
        token: String?
    ) async throws(StorefrontError) -> (Data, HTTPURLResponse) {
        let started = ContinuousClock.now
        do throws(StorefrontError) {
            let (data, response) = try await transfer(method, path, body: body, headers: headers, token: token)
            let milliseconds = (ContinuousClock.now - started).timeInterval * 1000
            log(.debug, "\(method) /\(Self.pathOnly(path)) → \(response.statusCode) in \(Int(milliseconds)) ms")
            return (data, response)
        } catch {
            if error != .cancelled { log(.warning, "\(method) /\(Self.pathOnly(path)) failed: \(error)") }
            throw error
        }
    }

    /// `path` without its query, for logs.
    static func pathOnly(_ path: String) -> Substring { path.prefix { $0 != "?" } }

    /// The token of the user the client acts for: the app's (its token
    /// provider's) or the anonymous user's (created when there is none or it
    /// expired). A token for another subject drops the previous user's caches
    /// (on disk too) and adopts the new user's disk cache.
    func currentToken() async throws(StorefrontError) -> String {
        let token: String
        switch appUser {
        case .signedIn(let provider):
            token = try await providedToken(provider)
        case .anonymous:
            token = try await currentAnonymousIdentity().token
            // Signed in while the anonymous user was being created: the signed-in user's token, then.
            guard case .anonymous = appUser else { return try await currentToken() }
        }
        adoptOwner(of: token)
        return token
    }

    /// What `provider` returns, its failure typed (``tokenProviderError(_:)``).
    func providedToken(_ provider: TokenProvider) async throws(StorefrontError) -> String {
        let token: String
        do {
            token = try await provider()
        } catch is CancellationError {
            throw .cancelled
        } catch {
            let failure = Self.tokenProviderError(error)
            log(.error, "the token provider failed: \(failure)")
            throw failure
        }
        remember(token: token)
        return token
    }

    /// Keeps `token` among the last three, so log messages are scrubbed of it.
    func remember(token: String) {
        if !recentTokens.contains(token) { recentTokens = Array((recentTokens + [token]).suffix(3)) }
    }

    /// Makes the token's subject the owner of the user caches; another
    /// subject than before drops the previous user's (on disk too).
    func adoptOwner(of token: String) {
        remember(token: token)
        let subject = TokenSubject.of(token)
        if (subject ?? token) != owner {
            let previous = owner
            if previous != nil {
                log(.info, "another user signed in: the previous user's cached entitlements, status and checkouts were dropped")
                dropUserCaches()
            }
            owner = subject ?? token
            ownerKey = subject.map(EntitlementDiskCache.userKey(subject:))
            adoptCache(announcingChange: previous != nil)
        }
    }

    /// What a failing token provider means: a `URLError` (its server could
    /// not be reached, e.g. refreshing an expired token offline) is
    /// ``StorefrontError/network(message:)``, so the entitlements cache can
    /// still answer; a ``StorefrontError`` stands; anything else is
    /// ``StorefrontError/unauthorized(message:)``.
    static func tokenProviderError(_ error: any Error) -> StorefrontError {
        if let error = error as? StorefrontError { return error }
        if let error = error as? URLError, error.code != .cancelled {
            return .network(message: "The token provider could not reach its server (\(describe(error.code)))")
        }
        return .unauthorized(message: "No token for the signed-in user: \(error.localizedDescription)")
    }

    private func transfer(
        _ method: String, _ path: String, body: Data?, headers: [String: String],
        token: String?
    ) async throws(StorefrontError) -> (Data, HTTPURLResponse) {
        guard let url = URL(string: Self.join(baseURL, path)) else { throw .invalidResponse(message: "Bad URL for \(path)") }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: options.requestTimeout.timeInterval)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue("StorefrontKit/1", forHTTPHeaderField: "User-Agent")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw Self.transportError(error, url: url)
        }
        guard let http = response as? HTTPURLResponse else { throw .invalidResponse(message: "Not an HTTP answer from \(url.host ?? "the server")") }
        return (data, http)
    }

    static func transportError(_ error: any Error, url: URL) -> StorefrontError {
        if error is CancellationError { return .cancelled }
        if let error = error as? URLError {
            if error.code == .cancelled { return .cancelled }
            return .network(message: "Could not reach \(url.host ?? "the server") (\(Self.describe(error.code)))")
        }
        return .network(message: "Could not reach \(url.host ?? "the server"): \(error.localizedDescription)")
    }

    static func describe(_ code: URLError.Code) -> String {
        switch code {
        case .notConnectedToInternet: "offline"
        case .timedOut: "timed out"
        case .cannotConnectToHost: "connection refused"
        case .cannotFindHost, .dnsLookupFailed: "unknown host"
        case .networkConnectionLost: "connection lost"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid:
            "TLS failed"
        default: "URL error \(code.rawValue)"
        }
    }

    static func join(_ base: URL, _ path: String) -> String {
        var root = base.absoluteString
        while root.hasSuffix("/") { root.removeLast() }
        return root + "/" + path
    }

    static func makeSession(timeout: Duration) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = timeout.timeInterval
        return URLSession(configuration: configuration)
    }

    /// ``decode(_:_:what:)``, logging a failure.
    func decode<T: Decodable>(_ type: T.Type, _ data: Data, what: String) throws(StorefrontError) -> T {
        do throws(StorefrontError) {
            return try Self.decode(type, data, what: what)
        } catch {
            log(.error, "\(error)")
            throw error
        }
    }

    static func decode<T: Decodable>(_ type: T.Type, _ data: Data, what: String) throws(StorefrontError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            throw .invalidResponse(message: "The \(what) answer could not be read: \(summary(error))")
        } catch {
            throw .invalidResponse(message: "The \(what) answer could not be read: \(error.localizedDescription)")
        }
    }

    static func summary(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let text = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return text.isEmpty ? "the top level" : text
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing \(key.stringValue) at \(path(context))"
        case .valueNotFound(_, let context): return "null at \(path(context))"
        case .typeMismatch(_, let context): return "wrong type at \(path(context))"
        case .dataCorrupted(let context): return "\(context.debugDescription) at \(path(context))"
        @unknown default: return "\(error)"
        }
    }

    static func encode<T: Encodable>(_ value: T) throws(StorefrontError) -> Data {
        do { return try JSONEncoder().encode(value) } catch {
            throw .invalidResponse(message: "Could not encode the request: \(error.localizedDescription)")
        }
    }

    /// The answer's `Date` header (RFC 7231), i.e. the server's clock.
    static func serverDate(_ response: HTTPURLResponse) -> Date? {
        guard let text = response.value(forHTTPHeaderField: "Date") else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }
}

/// A cached value and when it was stored.
struct Fresh<Value: Sendable>: Sendable {
    var value: Value
    var storedAt: ContinuousClock.Instant

    init(_ value: Value) {
        self.value = value
        storedAt = .now
    }

    func isFresh(_ lifetime: Duration) -> Bool { ContinuousClock.now - storedAt < lifetime }
}

/// One `GET /api/products/{id}` answer and its `ETag`.
struct ProductEntry: Sendable {
    var etag: String?
    var savedAt: Date
    var product: Product
}

/// A checkout this client opened, with what the user had before it.
struct OpenCheckout: Sendable {
    var session: CheckoutSession
    var baseline: [EntitlementInfo]?
    /// Opened for a subscription product (``StorefrontClient/awaitPurchase(checkoutID:timeout:)``
    /// then waits for what the subscription grants).
    var expectsSubscription = false
}

extension StorefrontClient {
    /// Reads the product list from disk the first time it is needed.
    func loadDiskCacheOnce() {
        guard !diskCacheLoaded else { return }
        diskCacheLoaded = true
        if productsEntry == nil, let entry = diskCache?.load() { productsEntry = entry }
    }
}
