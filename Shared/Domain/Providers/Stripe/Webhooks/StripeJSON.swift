import BillingModel
import Foundation
import JSONCodec

/// Reading Stripe's conventions from a parsed body: ids that arrive as a
/// string or, when expanded, as an object with an `id`; times as Unix
/// seconds; bounded strings (the body is the caller's input).
enum StripeJSON {
    /// Ids, statuses and other short strings longer than this are refused.
    static let maximumIDLength = 255
    /// Stripe itself caps metadata at 50 keys, 40-character keys and 500-character values.
    static let maximumMetadataKeys = 50
    static let maximumMetadataKeyLength = 40
    static let maximumMetadataValueLength = 500

    /// A short string, or nil when absent, null, empty or too long.
    static func string(_ value: JSONValue?) -> String? {
        guard case .string(let text)? = value, !text.isEmpty, text.utf8.count <= maximumIDLength else { return nil }
        return text
    }

    /// An expandable field's id: `"sub_123"` or `{"id": "sub_123", …}`.
    static func id(_ value: JSONValue?) -> String? {
        string(value) ?? string(value?["id"])
    }

    /// A Unix-seconds timestamp as a date.
    static func date(_ value: JSONValue?) -> Date? {
        guard let seconds = value?.int64, seconds >= 0 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// An integer amount in minor units.
    static func amount(_ value: JSONValue?) -> Int64? {
        guard case .integer(let amount)? = value else { return nil }
        return amount
    }

    /// A three-letter currency code, uppercased (Stripe sends lowercase `usd`).
    static func currency(_ value: JSONValue?) -> String? {
        guard let code = string(value), code.utf8.count == 3 else { return nil }
        return code.uppercased()
    }

    /// A `metadata` object as strings: Stripe's values are always strings;
    /// anything else, and anything over Stripe's own limits, is left out.
    static func metadata(_ value: JSONValue?) -> [String: String] {
        guard let members = value?.object else { return [:] }
        var result: [String: String] = [:]
        for (key, member) in members where result.count < maximumMetadataKeys && key.utf8.count <= maximumMetadataKeyLength {
            guard case .string(let text) = member, text.utf8.count <= maximumMetadataValueLength else { continue }
            result[key] = text
        }
        return result
    }

    /// A required field, or ``StripeEventError/missingField(_:)`` naming its path.
    static func required<T>(_ value: T?, _ path: String) throws(StripeEventError) -> T {
        guard let value else { throw .missingField(path) }
        return value
    }
}
