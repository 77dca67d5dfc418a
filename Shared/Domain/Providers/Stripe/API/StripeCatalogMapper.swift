import Webhooks
import BillingModel
import JSONCodec

/// Turns Stripe's active Products and Prices into catalog items: one per
/// active price of an active product, bought by its price id (the variant).
///
/// Left out: prices without a fixed `unit_amount` (customer-chosen or tiered
/// amounts) and metered recurring prices, which a one-line hosted checkout
/// cannot sell at a stated price. A product with several prices names each
/// (its `nickname`, else its interval: "Monthly", "Yearly", "Every 3 months",
/// "One-time"). Order: product name, product id, amount, price id — stable
/// whatever order the pages came in.
enum StripeCatalogMapper {
    static func items(products: [JSONValue], prices: [JSONValue], provider: Provider) -> [CatalogItem] {
        var productsByID: [String: JSONValue] = [:]
        for product in products where product["object"]?.string == "product" && product["active"]?.bool == true {
            guard let id = product["id"]?.string, productsByID[id] == nil else { continue }
            productsByID[id] = product
        }
        var seen: Set<String> = []
        let sellable = prices.filter { price in
            guard price["object"]?.string == "price", price["active"]?.bool == true, let id = price["id"]?.string,
                let product = price["product"]?.string ?? price["product", "id"]?.string, productsByID[product] != nil,
                price["unit_amount"]?.int64 != nil, price["recurring", "usage_type"]?.string != "metered"
            else { return false }
            return seen.insert(id).inserted
        }
        var pricesPerProduct: [String: Int] = [:]
        for price in sellable { pricesPerProduct[productID(price), default: 0] += 1 }

        var rows: [(name: String, product: String, amount: Int64, price: String, item: CatalogItem)] = []
        for price in sellable {
            let productID = productID(price)
            guard let product = productsByID[productID], let priceID = price["id"]?.string, let amount = price["unit_amount"]?.int64,
                let currency = price["currency"]?.string
            else { continue }
            let productName = product["name"]?.string ?? productID
            let interval = interval(price)
            let name = pricesPerProduct[productID, default: 0] > 1 ? "\(productName) – \(label(price, interval: interval))" : productName
            let item = CatalogItem(
                provider: provider, productID: productID, variantID: priceID, name: name, descriptionHTML: product["description"]?.string ?? "",
                price: amount, currency: currency, interval: interval, testMode: price["livemode"]?.bool == false)
            rows.append((productName.lowercased(), productID, amount, priceID, item))
        }
        rows.sort { a, b in (a.name, a.product, a.amount, a.price) < (b.name, b.product, b.amount, b.price) }
        return rows.map(\.item)
    }

    private static func productID(_ price: JSONValue) -> String {
        price["product"]?.string ?? price["product", "id"]?.string ?? ""
    }

    /// `recurring.interval` (`day`, `week`, `month`, `year`) and `interval_count`; nil for a one-time price.
    static func interval(_ price: JSONValue) -> BillingInterval? {
        guard price["type"]?.string == "recurring", let text = price["recurring", "interval"]?.string,
            let unit = BillingInterval.Unit(rawValue: text), unit != .hour
        else { return nil }
        let count = price["recurring", "interval_count"]?.int64.map { Int(clamping: $0) } ?? 1
        return BillingInterval(unit: unit, count: max(1, count))
    }

    private static func label(_ price: JSONValue, interval: BillingInterval?) -> String {
        if let nickname = price["nickname"]?.string { return nickname }
        guard let interval else { return "One-time" }
        if interval.count == 1 {
            switch interval.unit {
            case .day: return "Daily"
            case .week: return "Weekly"
            case .month: return "Monthly"
            case .year: return "Yearly"
            case .hour: return "Hourly"
            }
        }
        return "Every \(interval.count) \(interval.unit.rawValue)s"
    }
}
