import BillingModel

/// The plans one subscription may move between (docs/plan-changes.md): a
/// monthly and an annual plan of the same product, or the tiers of one
/// ladder. A plan change to a plan of another group (or of none) is refused.
///
/// ```json
/// "product_groups": {
///   "premium": { "lemonsqueezy": ["2", "3"], "stripe": ["price_Monthly", "price_Yearly"] }
/// }
/// ```
/// Ids are each provider's plan-level ids: Lemon Squeezy variant ids, Stripe
/// price ids, Paystack plan codes. A plan belongs to one group at most.
public struct ProductGroup: Sendable, Hashable {
    /// 1–64 characters of `[A-Za-z0-9_.-]`.
    public var name: String
    /// Per provider, the plan ids of the group.
    public var planIDs: [Provider: Set<String>]

    public init(name: String, planIDs: [Provider: Set<String>]) {
        self.name = name
        self.planIDs = planIDs
    }
}

extension EntitlementsConfiguration {
    /// The group holding `provider`'s plan `variantID`; nil when none does.
    public func productGroup(_ provider: Provider, variantID: String?) -> ProductGroup? {
        guard let variantID else { return nil }
        return productGroups.first { $0.planIDs[provider]?.contains(variantID) == true }
    }

    static func productGroups(_ value: ConfigJSON, problems: inout [String]) -> [ProductGroup] {
        guard case .object(let map) = value else {
            problems.append("\"product_groups\" must be an object of group names")
            return []
        }
        var groups: [ProductGroup] = []
        var owner: [Provider: [String: String]] = [:]
        for name in map.keys.sorted() {
            let at = "product_groups.\(name)"
            if !isValidIdentifier(name) { problems.append("\(at): names are 1-64 characters of A-Z a-z 0-9 _ . -") }
            let lists = idLists(map[name] ?? .null, allowed: Provider.allCases.map(\.rawValue), at: at, problems: &problems)
            var planIDs: [Provider: Set<String>] = [:]
            for (key, ids) in lists {
                guard let provider = Provider(rawValue: key) else { continue }
                planIDs[provider] = ids
                for id in ids.sorted() {
                    if let other = owner[provider]?[id] {
                        problems.append("\(at).\(key): \"\(id)\" is already in product_groups.\(other)")
                    }
                    owner[provider, default: [:]][id] = name
                }
            }
            if planIDs.values.allSatisfy(\.isEmpty) { problems.append("\(at): names no plan") }
            groups.append(ProductGroup(name: name, planIDs: planIDs))
        }
        return groups
    }
}
