import Foundation
import BillingModel

/// Which provider products grant which entitlements: the `ENTITLEMENTS_FILE`.
///
/// ```json
/// {
///   "entitlements": {
///     "premium": {
///       "lemonsqueezy": { "products": ["123"], "variants": ["456"] },
///       "paystack": { "plans": ["PLN_gx2wn530m0i3w3m"] }
///     },
///     "pro_icons": {
///       "lemonsqueezy": { "variants": ["789"] },
///       "one_time": { "duration_days": 365 }
///     }
///   }
/// }
/// ```
/// Identifiers are 1–64 characters of `[A-Za-z0-9_.-]`. Each registered
/// provider's name is a key, holding the id lists its ``EntitlementProviding``
/// part names; provider ids are the providers' raw ids (Lemon Squeezy product
/// and variant ids, Paystack plan codes), as strings. A purchase grants every entitlement one of its ids is
/// listed under. `one_time` says how long a one-time purchase grants it:
/// `{"lifetime": true}` (the default) or `{"duration_days": N}`; subscriptions
/// always grant for as long as ``AccessRules`` say.
public struct EntitlementsConfiguration: Sendable, Hashable {
    /// One entitlement and what grants it.
    public struct Entitlement: Sendable, Hashable {
        public var identifier: String
        /// Per provider, its id lists (``EntitlementProviding/entitlementIDLists``:
        /// Lemon Squeezy `products` and `variants`, Paystack `plans`).
        public var grantingIDs: [Provider: [String: Set<String>]] = [:]
        /// nil: one-time purchases grant for life.
        public var oneTimeDuration: TimeInterval?

        public init(identifier: String) { self.identifier = identifier }

        /// The ids of one of `provider`'s lists (`ids(.paystack, "plans")`).
        public func ids(_ provider: Provider, _ list: String) -> Set<String> {
            grantingIDs[provider]?[list] ?? []
        }

        func isGranted(by provider: Provider, product: String?, variant: String?) -> Bool {
            guard let lists = grantingIDs[provider] else { return false }
            return provider.entitlementRules.grants(lists, productID: product, variantID: variant)
        }
    }

    /// In identifier order.
    public var entitlements: [Entitlement]
    /// The plans a subscription may change between (`product_groups`), in name order.
    public var productGroups: [ProductGroup]

    public init(entitlements: [Entitlement], productGroups: [ProductGroup] = []) {
        self.entitlements = entitlements.sorted { $0.identifier < $1.identifier }
        self.productGroups = productGroups.sorted { $0.name < $1.name }
    }

    /// Every problem found in a file, each naming where it is.
    public struct Invalid: Error, CustomStringConvertible, Equatable {
        public var problems: [String]
        public var description: String { "invalid entitlements file: " + problems.joined(separator: "; ") }
    }

    /// Largest file read.
    public static let maximumFileBytes = 1 << 20

    /// Reads and validates a file.
    /// - Throws: ``Invalid`` naming every problem (or that the file cannot be read).
    public static func load(path: String) throws(Invalid) -> EntitlementsConfiguration {
        guard let data = FileManager.default.contents(atPath: path) else { throw Invalid(problems: ["cannot read \(path)"]) }
        guard data.count <= maximumFileBytes else { throw Invalid(problems: ["\(path) is larger than \(maximumFileBytes) bytes"]) }
        return try parse(Array(data))
    }

    /// Parses and validates the JSON text of a file.
    /// - Throws: ``Invalid`` naming every problem.
    public static func parse(_ bytes: [UInt8]) throws(Invalid) -> EntitlementsConfiguration {
        let root: ConfigJSON
        do {
            root = try JSONDecoder().decode(ConfigJSON.self, from: Data(bytes))
        } catch {
            throw Invalid(problems: ["not JSON"])
        }
        var problems: [String] = []
        guard case .object(let top) = root else { throw Invalid(problems: ["the top level must be an object"]) }
        for key in top.keys.sorted() where key != "entitlements" && key != "product_groups" {
            problems.append("unknown key \"\(key)\" at the top level")
        }
        guard case .object(let map)? = top["entitlements"] else {
            throw Invalid(problems: problems + ["\"entitlements\" must be an object of entitlement identifiers"])
        }
        if map.isEmpty { problems.append("\"entitlements\" is empty") }
        var result: [Entitlement] = []
        for identifier in map.keys.sorted() {
            let at = "entitlements.\(identifier)"
            if !isValidIdentifier(identifier) { problems.append("\(at): identifiers are 1-64 characters of A-Z a-z 0-9 _ . -") }
            guard case .object(let body)? = map[identifier] else { problems.append("\(at) must be an object"); continue }
            var entitlement = Entitlement(identifier: identifier)
            let providers = Provider.allCases
            let expected = (providers.map(\.rawValue) + ["one_time"]).joined(separator: ", ")
            for key in body.keys.sorted() where key != "one_time" && Provider(rawValue: key) == nil {
                problems.append("\(at): unknown key \"\(key)\" (expected \(expected))")
            }
            for provider in providers {
                guard let entry = body[provider.rawValue] else { continue }
                let allowed = provider.entitlementRules.entitlementIDLists
                entitlement.grantingIDs[provider] = idLists(entry, allowed: allowed, at: "\(at).\(provider.rawValue)", problems: &problems)
            }
            if entitlement.grantingIDs.values.allSatisfy({ $0.values.allSatisfy(\.isEmpty) }) {
                problems.append("\(at): no product, variant or plan grants it")
            }
            if let oneTime = body["one_time"] {
                entitlement.oneTimeDuration = duration(oneTime, at: "\(at).one_time", problems: &problems)
            }
            result.append(entitlement)
        }
        let groups = top["product_groups"].map { productGroups($0, problems: &problems) } ?? []
        guard problems.isEmpty else { throw Invalid(problems: problems) }
        return EntitlementsConfiguration(entitlements: result, productGroups: groups)
    }

    /// The entitlements a purchase of `product`/`variant` grants.
    public func entitlements(for provider: Provider, product: String?, variant: String?) -> [Entitlement] {
        entitlements.filter { $0.isGranted(by: provider, product: product, variant: variant) }
    }

    static func isValidIdentifier(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64
            && text.utf8.allSatisfy { byte in
                isAlphanumeric(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
            }
    }

    static func isValidProviderID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= CatalogID.maximumRawLength
            && text.utf8.allSatisfy { byte in
                isAlphanumeric(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
                    || byte == UInt8(ascii: "-")
            }
    }

    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A)
    }

    static func idLists(_ value: ConfigJSON, allowed: [String], at: String, problems: inout [String]) -> [String: Set<String>] {
        guard case .object(let object) = value else {
            problems.append("\(at) must be an object with \(allowed.joined(separator: " and/or "))")
            return [:]
        }
        var lists: [String: Set<String>] = [:]
        for key in object.keys.sorted() {
            guard allowed.contains(key) else {
                problems.append("\(at): unknown key \"\(key)\" (expected \(allowed.joined(separator: ", ")))")
                continue
            }
            guard case .array(let items)? = object[key] else { problems.append("\(at).\(key) must be an array of ids"); continue }
            var ids = Set<String>()
            for (index, item) in items.enumerated() {
                // Lemon Squeezy ids are integers in its attributes: accept both spellings.
                let text: String? =
                    switch item {
                    case .string(let string): string
                    case .number(let number) where number.rounded() == number && abs(number) < 1e15: String(Int64(number))
                    default: nil
                    }
                guard let text, isValidProviderID(text) else {
                    problems.append("\(at).\(key)[\(index)] must be a provider id (1-128 characters of A-Z a-z 0-9 _ . : -)")
                    continue
                }
                if !ids.insert(text).inserted { problems.append("\(at).\(key) lists \"\(text)\" twice") }
            }
            lists[key] = ids
        }
        return lists
    }

    private static func duration(_ value: ConfigJSON, at: String, problems: inout [String]) -> TimeInterval? {
        guard case .object(let object) = value, object.count == 1 else {
            problems.append("\(at) must be {\"lifetime\": true} or {\"duration_days\": N}")
            return nil
        }
        if let lifetime = object["lifetime"] {
            if lifetime != .bool(true) { problems.append("\(at).lifetime must be true") }
            return nil
        }
        if case .number(let days)? = object["duration_days"], days.rounded() == days, (1...36_500).contains(days) {
            return days * 86_400
        }
        problems.append("\(at) must be {\"lifetime\": true} or {\"duration_days\": N} with N a whole number of days from 1 to 36500")
        return nil
    }
}

/// JSON as a configuration file holds it (read once at start-up).
enum ConfigJSON: Decodable, Equatable {
    case null, bool(Bool), number(Double), string(String), array([ConfigJSON]), object([String: ConfigJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([ConfigJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: ConfigJSON].self))
        }
    }
}
