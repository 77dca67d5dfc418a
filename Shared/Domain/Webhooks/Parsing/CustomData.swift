import BillingModel
import JSONCodec

/// Reads checkout custom data (Lemon Squeezy `meta.custom_data`) and
/// transaction metadata (Paystack `metadata`) into a flat string map.
enum CustomData {
    /// Values longer than this are cut: metadata is caller-controlled input.
    static let maximumValueLength = 512
    /// At most this many entries are kept.
    static let maximumEntries = 64

    /// Accepts an object, a string holding a JSON object (Paystack sometimes
    /// stringifies metadata), or anything else (`""`, `0`, `null` → empty).
    /// Scalar members are stringified; Paystack `custom_fields`
    /// (`[{variable_name, value}]`) entries are added under their variable name
    /// unless a top-level member of that name exists.
    static func flatten(_ value: JSONValue?) -> [String: String] {
        var source = value
        if case .string(let text)? = value, text.first == "{" {
            source = try? JSONValue.parse(Array(text.utf8))
        }
        guard let members = source?.object else { return [:] }
        var result: [String: String] = [:]
        for (key, member) in members.sorted(by: { $0.key < $1.key }) where result.count < maximumEntries {
            switch member {
            case .object, .array, .null: continue
            default:
                if let text = member.string { result[key] = String(text.prefix(maximumValueLength)) }
            }
        }
        for field in members["custom_fields"]?.array ?? [] where result.count < maximumEntries {
            guard let name = field["variable_name"]?.string, result[name] == nil, let text = field["value"]?.string else { continue }
            result[name] = String(text.prefix(maximumValueLength))
        }
        return result
    }

    /// The app user id the data claims: ``CustomDataKeys/appUserID`` only
    /// (other integrations' `app_user_id`/`user_id` name their own users, not
    /// ours). A claim until ``OwnershipProof/check(_:)`` has seen its proof.
    static func appUserID(in data: [String: String]) -> String? {
        guard let value = data[CustomDataKeys.appUserID], !value.isEmpty else { return nil }
        return value
    }
}
