// Copies of the seed tutorials' iOS models (/work/shared/seeds), unchanged
// apart from `Identifiable`/SwiftUI-only parts: every answer must decode with them.

struct CheckoutResponse: Codable {
    let success: Bool
    let checkoutUrl: String
}

struct SubscriptionStatus: Codable {
    let active: Bool
    let planName: String?
    let nextBillingDate: String?
    let subscriptionCode: String?
    let emailToken: String?

    enum CodingKeys: String, CodingKey {
        case active
        case planName = "plan_name"
        case nextBillingDate = "next_billing_date"
        case subscriptionCode = "subscription_code"
        case emailToken = "email_token"
    }
}
