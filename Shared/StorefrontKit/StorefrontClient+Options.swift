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

        /// Options with the defaults above, changed where given.
        public init(
            cacheDirectory: URL? = nil, productsLifetime: Duration = .seconds(300), entitlementsLifetime: Duration = .seconds(30),
            returnURLs: [URL] = [], requestTimeout: Duration = .seconds(30), checkoutAttempts: Int = 3,
            pollInitialDelay: Duration = .milliseconds(500), pollMaximumDelay: Duration = .seconds(5)
        ) {
            self.cacheDirectory = cacheDirectory
            self.productsLifetime = productsLifetime
            self.entitlementsLifetime = entitlementsLifetime
            self.returnURLs = returnURLs
            self.requestTimeout = requestTimeout
            self.checkoutAttempts = max(1, checkoutAttempts)
            self.pollInitialDelay = pollInitialDelay
            self.pollMaximumDelay = max(pollInitialDelay, pollMaximumDelay)
        }
    }

    /// Whether a read may be answered from the cache.
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
