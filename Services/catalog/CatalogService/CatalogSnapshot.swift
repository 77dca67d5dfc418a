import HTTPServer
import BillingModel

/// A response body encoded once, with its strong entity tag.
public struct RenderedBody: Sendable {
    /// The JSON bytes sent to clients.
    public let bytes: [UInt8]
    /// `"<hex>"`, derived from ``bytes`` only, so equal bodies always carry equal tags.
    public let etag: String

    init(bytes: [UInt8]) {
        self.bytes = bytes
        etag = EntityTag.strong(for: bytes)
    }
}

/// The catalog as it is served between two refreshes: every response body is
/// encoded when the snapshot is built, so requests only copy bytes.
///
/// Immutable; a refresh replaces the whole snapshot at once, so a request
/// never sees half of one refresh and half of another.
public final class CatalogSnapshot: Sendable {
    /// The products in list order.
    public let products: [ProductResource]
    /// Body of `GET /api/products`.
    public let list: RenderedBody
    /// Body of `GET /api/products/{id}`, by product ``ProductResource/id``.
    public let productsByID: [String: RenderedBody]
    /// ``CatalogClock`` time at which the oldest data in this snapshot was
    /// fetched (when a source failed and its last good items are kept, that
    /// older time counts, so the age never understates staleness).
    public let fetchedAt: Double

    init(products: [ProductResource], list: RenderedBody, productsByID: [String: RenderedBody], fetchedAt: Double) {
        self.products = products
        self.list = list
        self.productsByID = productsByID
        self.fetchedAt = fetchedAt
    }

    /// Whole seconds between ``fetchedAt`` and `now` (never negative).
    public func age(now: Double) -> Int {
        let seconds = (now - fetchedAt).rounded(.down)
        guard seconds > 0 else { return 0 }
        return seconds < Double(Int.max) ? Int(seconds) : Int.max
    }
}
