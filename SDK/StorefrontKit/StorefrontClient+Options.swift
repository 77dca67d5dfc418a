import Foundation

extension StorefrontClient {
    /// How a ``StorefrontClient`` caches, retries and recognises the end of a checkout.
    /// The defaults suit an app; tests shorten the lifetimes and delays.
    public struct Options: Sendable {
        /// A folder for the product list (with its `ETag`), so it survives app
        /// launches; nil keeps it in memory only. The folder is created when missing.
        public var cacheDirectory: URL?
        /// How long ``CachePolicy/returnCacheIfFresh`` answers products from the cache (5 minutes).
        public var productsLifetime: Duration
        /// How long ``CachePolicy/returnCacheIfFresh`` answers entitlements and status from the cache (30 seconds).
        public var entitlementsLifetime: Duration
        /// The app's return links (its deep link, e.g. `myapp://purchase-complete`,
        /// or universal link) that ``StorefrontClient/handleRedirect(_:)``
        /// recognises. A URL matches when scheme, host and port are the same and
        /// its path starts with the listed one. The gateway's own completion page
        /// (`<baseURL>/checkout/complete`) always matches.
        public var returnURLs: [URL]
        /// Timeout of one request (30 seconds).
        public var requestTimeout: Duration
        /// How many times one ``StorefrontClient/createCheckout(variantID:email:)``
        /// sends its request (same `Idempotency-Key`) when the network fails or
        /// the server says the first try is still in progress (3).
        public var checkoutAttempts: Int
        /// The first pause between two polls of ``StorefrontClient/awaitPurchase(checkoutID:timeout:)`` (0.5 s); it doubles…
        public var pollInitialDelay: Duration
        /// …up to this (5 s).
        public var pollMaximumDelay: Duration
        /// A folder for the last entitlements answer of the signed-in user, so
        /// a paying user is let in when the app starts offline; nil keeps it
        /// in memory only. By default ``defaultEntitlementsDirectory`` (the
        /// app's Application Support folder). The folder is created when missing.
        public var entitlementsDirectory: URL?
        /// How often ``StorefrontClient/entitlementSnapshots()`` and
        /// ``StorefrontClient/entitlementUpdates()`` refresh the entitlements
        /// while at least one of their streams is open (5 minutes); nil never.
        public var refreshInterval: Duration?
        /// Whether the client refreshes stale entitlements (and cuts a
        /// checkout wait's pause short) when the app returns to the
        /// foreground (true). Only where UIKit or AppKit exists; elsewhere call
        /// ``StorefrontClient/applicationWillEnterForeground()`` yourself.
        public var refreshesOnForeground: Bool
        /// After ``StorefrontClient/checkoutClosed(checkoutID:)``, how long
        /// ``StorefrontClient/awaitCheckout(_:timeout:)`` still looks for a
        /// payment made just before the page closed before it answers
        /// ``CheckoutOutcome/cancelled`` (2 s).
        public var checkoutClosedGrace: Duration
        /// Whether the client listens to the server's live stream of the
        /// user's entitlement changes (`GET /api/entitlements/stream`, a long
        /// poll) while a purchase is awaited or an entitlement stream is open
        /// (true). A change wakes a purchase wait at once and refreshes the
        /// observed entitlements; when the stream fails (an older server, a
        /// proxy that cuts long requests), the client polls as it would without it.
        public var liveChanges: Bool
        /// While the live stream is connected, the pause between two status
        /// reads of a purchase wait (10 s): changes wake it sooner, so this is
        /// only the safety net, for a change the stream did not bring (a
        /// backend whose projector does not publish changes yet, a change
        /// published while no poll was open). Without the stream the wait polls with
        /// ``pollInitialDelay`` and ``pollMaximumDelay``.
        public var liveChangesPollInterval: Duration
        /// The least severe level ``logHandler`` gets (``StorefrontLogLevel/info``).
        public var logLevel: StorefrontLogLevel
        /// The app's log hook; nil logs nothing. Messages never contain the token.
        public var logHandler: StorefrontLogHandler?
        /// The time the entitlement cache and the periodic refresh use
        /// (``SystemStorefrontClock``); tests pass a manual clock. The
        /// anonymous user's expiry is judged by it too.
        public var clock: any StorefrontClock
        /// Where a client started with ``StorefrontClient/AppUser/anonymous``
        /// keeps its anonymous user between launches. Nil (the default) is the
        /// platform's: the keychain where the Security framework exists
        /// (``KeychainAnonymousIdentityStore``), else a file in
        /// ``entitlementsDirectory`` (``FileAnonymousIdentityStore``), else memory only.
        public var anonymousIdentityStore: (any AnonymousIdentityStore)?
        /// The App Store's storefront, eligibility, notice and tokens for
        /// ``StorefrontClient/webCheckoutAvailability()`` (``platformAppStore``
        /// by default: StoreKit where it exists); tests pass a fake.
        public var appStore: any AppStoreEnvironment

        /// Options with the defaults above, changed where given.
        public init(
            cacheDirectory: URL? = nil, productsLifetime: Duration = .seconds(300), entitlementsLifetime: Duration = .seconds(30),
            returnURLs: [URL] = [], requestTimeout: Duration = .seconds(30), checkoutAttempts: Int = 3,
            pollInitialDelay: Duration = .milliseconds(500), pollMaximumDelay: Duration = .seconds(5),
            entitlementsDirectory: URL? = Options.defaultEntitlementsDirectory, refreshInterval: Duration? = .seconds(300),
            refreshesOnForeground: Bool = true, checkoutClosedGrace: Duration = .seconds(2), liveChanges: Bool = true,
            liveChangesPollInterval: Duration = .seconds(10), logLevel: StorefrontLogLevel = .info,
            logHandler: StorefrontLogHandler? = nil, clock: any StorefrontClock = .system,
            anonymousIdentityStore: (any AnonymousIdentityStore)? = nil, appStore: any AppStoreEnvironment = Options.platformAppStore
        ) {
            self.cacheDirectory = cacheDirectory
            self.productsLifetime = productsLifetime
            self.entitlementsLifetime = entitlementsLifetime
            self.returnURLs = returnURLs
            self.requestTimeout = requestTimeout
            self.checkoutAttempts = max(1, checkoutAttempts)
            self.pollInitialDelay = pollInitialDelay
            self.pollMaximumDelay = max(pollInitialDelay, pollMaximumDelay)
            self.entitlementsDirectory = entitlementsDirectory
            self.refreshInterval = refreshInterval.flatMap { $0 > .zero ? $0 : nil }
            self.refreshesOnForeground = refreshesOnForeground
            self.checkoutClosedGrace = max(.zero, checkoutClosedGrace)
            self.liveChanges = liveChanges
            self.liveChangesPollInterval = max(pollMaximumDelay, liveChangesPollInterval)
            self.logLevel = logLevel
            self.logHandler = logHandler
            self.clock = clock
            self.anonymousIdentityStore = anonymousIdentityStore
            self.appStore = appStore
        }

        /// `<Application Support>/StorefrontKit`: kept across launches and
        /// not purged by the system like Caches (a purge would show a paying
        /// user the paywall the next time they start offline).
        public static var defaultEntitlementsDirectory: URL? {
            FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first?
                .appendingPathComponent("StorefrontKit", isDirectory: true)
        }
    }

    /// Where ``StorefrontClient/entitlementsSnapshot(fetchPolicy:)`` may take
    /// its answer from (after RevenueCat's `CacheFetchPolicy`).
    public enum FetchPolicy: Hashable, Sendable {
        /// The cached answer while it is fresh (younger than
        /// ``Options/entitlementsLifetime``); otherwise the server's; and when
        /// the server cannot be reached or fails (offline, timeout, 5xx, an
        /// unreadable answer), the last cached answer — from memory or disk,
        /// however old, re-evaluated (``EntitlementsSnapshot``, "Cached
        /// answers") and carrying the failure in ``EntitlementsSnapshot/error``.
        /// Throws only when nothing is cached, or for errors that say
        /// something about the user (401, 403). The default.
        case cachedOrFetched
        /// The server's answer now; any failure throws.
        case fetchCurrent
        /// The cached answer (memory, else disk), re-evaluated, without a
        /// request; ``StorefrontError/notFound(message:)`` when nothing is cached.
        case fromCacheOnly
    }

    /// Whether a read may be answered from the cache.
    ///
    /// For entitlements, ``returnCacheIfFresh`` is ``FetchPolicy/cachedOrFetched``
    /// (so it answers from the cache when the server cannot be reached) and
    /// ``reload`` is ``FetchPolicy/fetchCurrent``.
    public enum CachePolicy: Hashable, Sendable {
        /// Answer from the cache while it is younger than its lifetime
        /// (``Options/productsLifetime``, ``Options/entitlementsLifetime``); otherwise ask the server.
        case returnCacheIfFresh
        /// Ask the server now. For products the request carries the cached
        /// `ETag` (`If-None-Match`), so an unchanged list costs a 304 and no body.
        case reload
    }
}

extension Duration {
    /// The duration in seconds.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
