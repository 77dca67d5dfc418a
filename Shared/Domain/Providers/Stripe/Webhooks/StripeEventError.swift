import BillingModel

/// Why a Stripe event body could not be read. Carries field names, never values.
public enum StripeEventError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not JSON, or larger than the JSON reader accepts.
    case notJSON
    /// Not an object with `"object": "event"`.
    case notAnEvent
    /// A field Storefront needs is absent or of the wrong type (e.g. `data.object.id`).
    case missingField(String)
    /// The event's type promises one kind of object and `data.object` is another.
    case unexpectedObject(expected: String, found: String)

    public var description: String {
        switch self {
        case .notJSON: "Stripe event body is not JSON"
        case .notAnEvent: "body is not a Stripe event object"
        case .missingField(let path): "Stripe event has no usable \(path)"
        case .unexpectedObject(let expected, let found): "Stripe event carries a \(found.prefix(40)) where a \(expected) belongs"
        }
    }
}
