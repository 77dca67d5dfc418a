import Foundation

/// Where an app may link to a web checkout, per App Store storefront: the
/// `APP_STORE_POLICY_FILE` (docs/app-store.md), served to apps at
/// `GET /api/app-config` and checked by create-checkout.
///
/// ```json
/// {
///   "version": "2026-12-07",
///   "notice": "Not legal advice: …",
///   "default": "not_allowed",
///   "rules": [
///     { "link_out": "allowed", "storefronts": ["USA"], "source": "App Review Guidelines 3.1.1(a) …" },
///     { "link_out": "entitlement_required", "entitlement": "ExternalPurchaseCustomLink",
///       "storefronts": ["AUT", "BEL"], "source": "…" }
///   ]
/// }
/// ```
/// A storefront is in one rule at most; one in none follows `default`.
public struct LinkOutPolicy: Sendable, Hashable, Codable {
    /// What one group of storefronts allows, and why.
    public struct Rule: Sendable, Hashable, Codable {
        public var linkOut: LinkOut
        public var storefronts: [AppStoreStorefront]
        /// Where the rule comes from: a guideline, a ruling, Apple's page.
        public var source: String
        /// For `entitlement_required`: the StoreKit API the app uses there
        /// (`ExternalPurchaseCustomLink`, `ExternalPurchaseLink`).
        public var entitlement: String?

        public init(linkOut: LinkOut, storefronts: [AppStoreStorefront], source: String, entitlement: String? = nil) {
            self.linkOut = linkOut
            self.storefronts = storefronts
            self.source = source
            self.entitlement = entitlement
        }

        enum CodingKeys: String, CodingKey {
            case linkOut = "link_out", storefronts, source, entitlement
        }
    }

    /// Changes whenever the file's rules do; apps cache by it.
    public var version: String
    /// What the policy is and is not (that it is not legal advice).
    public var notice: String
    /// For storefronts no rule names.
    public var defaultLinkOut: LinkOut
    public var rules: [Rule]

    public init(version: String, notice: String, defaultLinkOut: LinkOut, rules: [Rule]) {
        self.version = version
        self.notice = notice
        self.defaultLinkOut = defaultLinkOut
        self.rules = rules
    }

    enum CodingKeys: String, CodingKey {
        case version, notice, defaultLinkOut = "default", rules
    }

    /// The rule that names `storefront`, if any.
    public func rule(for storefront: AppStoreStorefront) -> Rule? {
        rules.first { $0.storefronts.contains(storefront) }
    }

    /// What `storefront` allows.
    public func linkOut(for storefront: AppStoreStorefront) -> LinkOut {
        rule(for: storefront)?.linkOut ?? defaultLinkOut
    }

    /// The policy of a deployment without a file: nowhere, so an app never
    /// links out by accident.
    public static let unconfigured = LinkOutPolicy(
        version: "unconfigured",
        notice: "No App Store link-out policy is configured (APP_STORE_POLICY_FILE): apps are told not to link out anywhere.",
        defaultLinkOut: .notAllowed, rules: [])

    /// Every problem found in a file.
    public struct Invalid: Error, CustomStringConvertible, Equatable {
        public var problems: [String]
        public var description: String { "invalid App Store policy file: " + problems.joined(separator: "; ") }
    }

    /// Largest file read.
    public static let maximumFileBytes = 256 * 1024

    /// Reads and validates a file.
    public static func load(path: String) throws(Invalid) -> LinkOutPolicy {
        guard let data = FileManager.default.contents(atPath: path) else { throw Invalid(problems: ["cannot read \(path)"]) }
        guard data.count <= maximumFileBytes else { throw Invalid(problems: ["\(path) is larger than \(maximumFileBytes) bytes"]) }
        return try parse(Array(data))
    }

    /// Parses and validates the JSON text of a file.
    public static func parse(_ bytes: [UInt8]) throws(Invalid) -> LinkOutPolicy {
        let policy: LinkOutPolicy
        do {
            policy = try JSONDecoder().decode(LinkOutPolicy.self, from: Data(bytes))
        } catch {
            throw Invalid(problems: [Self.describe(error)])
        }
        let problems = policy.problems
        guard problems.isEmpty else { throw Invalid(problems: problems) }
        return policy
    }

    /// What is wrong beyond the JSON's shape.
    var problems: [String] {
        var problems: [String] = []
        if version.isEmpty || version.utf8.count > 64 || !version.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) {
            problems.append("version must be 1–64 printable characters without spaces")
        }
        if notice.utf8.count > 2000 { problems.append("notice is longer than 2000 bytes") }
        if rules.count > 100 { problems.append("more than 100 rules") }
        var seen: [AppStoreStorefront: Int] = [:]
        for (index, rule) in rules.enumerated() {
            let name = "rules[\(index)]"
            if rule.storefronts.isEmpty { problems.append("\(name) names no storefront") }
            if rule.source.isEmpty || rule.source.utf8.count > 1000 { problems.append("\(name).source must be 1–1000 bytes") }
            if let entitlement = rule.entitlement, entitlement.isEmpty || entitlement.utf8.count > 100 {
                problems.append("\(name).entitlement must be 1–100 bytes")
            }
            for storefront in rule.storefronts {
                if let earlier = seen[storefront] {
                    problems.append("\(storefront) is in rules[\(earlier)] and \(name)")
                } else {
                    seen[storefront] = index
                }
            }
        }
        return problems
    }

    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "not JSON" }
        switch error {
        case .keyNotFound(let key, let context): return "missing \(path(context.codingPath + [key]))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not JSON" : "\(context.debugDescription) at \(path(context.codingPath))"
        @unknown default: return "not a policy file"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined().drop { $0 == "." }.description
    }
}
