import Foundation

// Copies of the seed tutorials' iOS models, exactly as the tutorials define
// them (only wrapped in an enum each, to keep their names apart from ours).
// Storefront's responses must decode with these unchanged. One copy for every
// test target: they import this module with `@testable`, so the structs stay
// internal, word for word as in the tutorials.

/// "In-App Purchases on iOS with Lemon Squeezy".
enum SeedLemonSqueezy {
    struct ProductResponse: Codable {
        let success: Bool
        let products: ProductsData
    }

    struct ProductsData: Codable {
        let data: [Product]
    }

    struct Product: Codable, Identifiable {
        let type: String
        let id: String
        let variantId: String
        let attributes: ProductAttributes
    }

    struct ProductAttributes: Codable {
        let name: String
        let price_formatted: String
        let description: String
        let buy_now_url: String
    }

    struct CheckoutResponse: Codable {
        let success: Bool
        let checkoutUrl: String
    }
}

/// "Build Paystack Subscriptions in iOS with Swift".
enum SeedPaystack {
    // Models/SubscriptionStatus.swift
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
}
