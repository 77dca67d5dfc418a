import Webhooks
import JSONCodec
/// A provider's answer to a fetch, byte for byte, with the same bytes parsed.
///
/// The bytes are what the provider sent (escapes such as `\/` and key order
/// untouched), for callers that pass the object on unchanged, e.g. as a
/// ``Models/ProviderSnapshot`` body.
public struct ProviderDocument: Sendable {
    /// The response body exactly as received.
    public let body: [UInt8]
    /// The body parsed (Lemon Squeezy: a JSON:API document; Paystack: the `{status, message, data}` envelope).
    public let json: JSONValue

    public init(body: [UInt8], json: JSONValue) {
        self.body = body
        self.json = json
    }
}

/// One page of a provider's list endpoint.
public struct ProviderPage: Sendable {
    /// One element of the page's `data` array.
    public struct Item: Sendable {
        /// The element's bytes exactly as they appear inside the page.
        public let raw: [UInt8]
        /// The element parsed.
        public let json: JSONValue

        public init(raw: [UInt8], json: JSONValue) {
            self.raw = raw
            self.json = json
        }
    }

    /// The page number asked for (1-based).
    public let number: Int
    /// The page's items, in the provider's order.
    public let items: [Item]
    /// Whether the provider says another page follows (Lemon Squeezy
    /// `meta.page.lastPage` or `links.next`; Paystack `meta.pageCount`).
    public let hasMore: Bool
    /// How many items the whole list holds, when the provider says.
    public let total: Int?
    /// How many pages the whole list has, when the provider says.
    public let pageCount: Int?

    public init(number: Int, items: [Item], hasMore: Bool, total: Int?, pageCount: Int?) {
        self.number = number
        self.items = items
        self.hasMore = hasMore
        self.total = total
        self.pageCount = pageCount
    }
}
