import Foundation

/// The products and plans the sandbox sells: the built-in ``standard`` catalog
/// or one loaded from a JSON file with the same (snake_case) shape.
public struct SandboxCatalog: Codable, Sendable, Equatable {
    public var lemonSqueezy: LemonSqueezyCatalog
    public var paystack: PaystackCatalog

    public init(lemonSqueezy: LemonSqueezyCatalog, paystack: PaystackCatalog) {
        self.lemonSqueezy = lemonSqueezy
        self.paystack = paystack
    }

    public enum LoadError: Error, Equatable {
        case unreadable(path: String)
        case invalid(path: String, reason: String)
    }

    /// Reads a catalog file (at most 1 MiB); ids must be unique and every variant's product must exist.
    public static func load(path: String) throws(LoadError) -> SandboxCatalog {
        guard let data = FileManager.default.contents(atPath: path), data.count <= 1 << 20 else { throw .unreadable(path: path) }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let catalog: SandboxCatalog
        do { catalog = try decoder.decode(SandboxCatalog.self, from: data) } catch {
            throw .invalid(path: path, reason: String(describing: error))
        }
        if let problem = catalog.problem() { throw .invalid(path: path, reason: problem) }
        return catalog
    }

    func problem() -> String? {
        let productIDs = lemonSqueezy.products.map(\.id)
        if Set(productIDs).count != productIDs.count { return "duplicate product id" }
        let variantIDs = lemonSqueezy.products.flatMap { $0.variants.map(\.id) }
        if Set(variantIDs).count != variantIDs.count { return "duplicate variant id" }
        if lemonSqueezy.products.contains(where: { $0.variants.isEmpty }) { return "a product has no variants" }
        let planIDs = paystack.plans.map(\.id)
        if Set(planIDs).count != planIDs.count { return "duplicate plan id" }
        return nil
    }
}

public struct LemonSqueezyCatalog: Codable, Sendable, Equatable {
    public var store: Store
    public var products: [Product]
    /// Codes a checkout's `checkout_data.discount_code` may name (``Discount``); nil in files that seed none.
    public var discounts: [Discount]? = nil

    public struct Store: Codable, Sendable, Equatable {
        public var id: Int
        public var name: String
        public var slug: String
        public var currency: String
    }

    public struct Product: Codable, Sendable, Equatable {
        public var id: Int
        public var name: String
        public var slug: String
        /// HTML, as Lemon Squeezy stores it.
        public var description: String
        /// `published` or `draft`.
        public var status: String
        public var variants: [Variant]
    }

    public struct Variant: Codable, Sendable, Equatable {
        public var id: Int
        public var name: String
        public var slug: String
        /// Cents.
        public var price: Int
        public var isSubscription: Bool
        /// `day|week|month|year`, nil for one-time.
        public var interval: String?
        public var intervalCount: Int?
        /// `pending` (a product's lone default variant), `draft` or `published`.
        public var status: String
        public var sort: Int
        /// The variant's free trial (`has_free_trial` when set): `day|week|month|year` and a count; nil for none.
        public var trialInterval: String? = nil
        public var trialIntervalCount: Int? = nil

        /// Whether a subscription to it starts on trial.
        var hasFreeTrial: Bool { isSubscription && trialInterval != nil && (trialIntervalCount ?? 0) > 0 }
    }

    func product(id: Int) -> Product? { products.first { $0.id == id } }
    func variant(id: Int) -> (Product, Variant)? {
        for product in products { if let v = product.variants.first(where: { $0.id == id }) { return (product, v) } }
        return nil
    }
}

public struct PaystackCatalog: Codable, Sendable, Equatable {
    /// The integration id Paystack puts on every object.
    public var integration: Int
    public var plans: [Plan]

    public struct Plan: Codable, Sendable, Equatable {
        public var id: Int
        public var name: String
        public var planCode: String
        public var description: String?
        /// Subunits (kobo).
        public var amount: Int
        /// `hourly|daily|weekly|monthly|quarterly|biannually|annually`.
        public var interval: String
        public var currency: String
    }

    func plan(idOrCode: String) -> Plan? { plans.first { String($0.id) == idOrCode || $0.planCode == idOrCode } }
}
