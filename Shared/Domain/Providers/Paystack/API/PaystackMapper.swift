import Foundation
import BillingModel
import JSONCodec
import Webhooks

/// Reads Paystack plans and subscriptions.
enum PaystackMapper {
    /// One item per plan (the plan is both product and variant; ids are the
    /// plan code). Deleted/archived plans are left out. Order: name, plan code.
    static func catalogItems(_ plans: [JSONValue]) -> [CatalogItem] {
        var seen: Set<String> = []
        var items: [CatalogItem] = []
        for plan in plans {
            guard let code = plan["plan_code"]?.string, seen.insert(code).inserted else { continue }
            if plan["is_deleted"]?.bool == true || plan["is_archived"]?.bool == true { continue }
            guard let amount = plan["amount"]?.int64, let currency = plan["currency"]?.string else { continue }
            let hosted = plan["hosted_page"]?.bool == true ? plan["hosted_page_url"]?.string : nil
            items.append(
                CatalogItem(
                    provider: .paystack, productID: code, variantID: code, name: plan["name"]?.string ?? code,
                    descriptionHTML: plan["description"]?.string ?? "", price: amount, currency: currency,
                    interval: BillingInterval(paystackInterval: plan["interval"]?.string), buyNowURL: hosted,
                    testMode: plan["domain"]?.string == "test"))
        }
        return items.sorted { a, b in
            let (x, y) = (a.name.lowercased(), b.name.lowercased())
            return x != y ? x < y : a.variantID < b.variantID
        }
    }

    static func subscription(_ data: JSONValue) -> ProviderSubscription? {
        guard let code = data["subscription_code"]?.string else { return nil }
        let status = data["status"]?.string ?? "unknown"
        var s = ProviderSubscription(provider: .paystack, id: code, status: status)
        let customer = data["customer"]
        s.customerID = customer?["customer_code"]?.string
        s.customerEmail = customer?["email"]?.string
        let plan = data["plan"]?.nonEmptyObject.map(JSONValue.object)
        s.planCode = plan?["plan_code"]?.string
        s.productID = s.planCode
        s.variantID = s.planCode
        s.productName = plan?["name"]?.string
        let next = data["next_payment_date"]?.date
        s.nextPaymentDate = next
        s.cancelled = status == "non-renewing" || status == "cancelled"
        if status == "active" || status == "attention" { s.renewsAt = next }
        if status == "non-renewing" { s.endsAt = next }
        s.emailToken = data["email_token"]?.string
        if let authorization = data["authorization"] {
            let brand = authorization["brand"]?.string ?? authorization["card_type"]?.string?.split(separator: " ").first.map(String.init)
            s.cardBrand = brand?.trimmingCharacters(in: .whitespaces).lowercased()
            s.cardLastFour = authorization["last4"]?.string
        }
        if let domain = data["domain"]?.string { s.testMode = domain == "test" }
        return s
    }
}
