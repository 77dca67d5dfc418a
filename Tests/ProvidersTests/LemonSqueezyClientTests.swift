import ServiceSettings
import Foundation
import HTTPClient
import BillingModel
import Providers
import SandboxKit
import SandboxServer
import Testing
import Webhooks
import JSONCodec

/// ``LemonSqueezyClient`` against the provider sandbox served on a real port.
@Suite struct LemonSqueezyClientTests {
    @Test func catalogFollowsEveryPage() async throws {
        try await LiveSandbox.with { sandbox in
            let paged = try await sandbox.lemonSqueezy(pageSize: 2).catalog()
            let single = try await sandbox.lemonSqueezy(pageSize: 100).catalog()
            // The standard sandbox store: 7 products (one draft) on 4 pages of 2.
            // Pending "Default" variants of single-variant products are kept; the draft product is not.
            #expect(paged.map(\.variantID) == ["8", "2", "3", "1", "6", "7", "9", "5"])
            #expect(paged == single)
            let premiumYearly = try #require(paged.first { $0.variantID == "3" })
            #expect(premiumYearly.productID == "2")
            #expect(premiumYearly.name == "Premium – Yearly")
            #expect(premiumYearly.price == 4999 && premiumYearly.currency == "USD" && premiumYearly.formattedPrice == "$49.99")
            #expect(premiumYearly.interval == BillingInterval(unit: .year))
            #expect(premiumYearly.descriptionText == "All premium features, billed monthly or yearly.")
            let icons = try #require(paged.first { $0.variantID == "1" })
            #expect(icons.name == "Pro Icons Pack" && icons.interval == nil && icons.buyNowURL != nil)
            #expect(paged.first { $0.variantID == "9" }?.interval == BillingInterval(unit: .month))
        }
    }

    @Test func checkoutPayFetchCancelResume() async throws {
        try await LiveSandbox.with { sandbox in
            let client = sandbox.lemonSqueezy()
            let email = try #require(EmailAddress("ls-buyer@example.com"))
            let checkoutID = UUID().uuidString.lowercased()
            let checkout = try await client.createCheckout(
                CheckoutRequest(
                    variantID: "2", email: email, appUserID: "user-ls-1", checkoutID: checkoutID, ownershipProof: "proof-ls-1",
                    redirectURL: "https://app.example.com/thanks", expiresAt: Date().addingTimeInterval(3600)))
            #expect(checkout.provider == .lemonsqueezy)
            #expect(checkout.url.contains(checkout.providerCheckoutID))
            #expect(checkout.expiresAt != nil)

            // What the provider stored is what we sent.
            let stored = try await sandbox.rawGet("/lemonsqueezy/v1/checkouts/\(checkout.providerCheckoutID)", key: LiveSandbox.lsKey)
            let attributes = try #require(stored["data", "attributes"])
            #expect(attributes["checkout_data", "email"]?.string == "ls-buyer@example.com")
            #expect(attributes["checkout_data", "custom", "storefront_user_id"]?.string == "user-ls-1")
            #expect(attributes["checkout_data", "custom", "storefront_checkout_id"]?.string == checkoutID)
            #expect(attributes["checkout_data", "custom", "storefront_proof"]?.string == "proof-ls-1")
            #expect(attributes["product_options", "redirect_url"]?.string == "https://app.example.com/thanks")
            #expect(attributes["variant_id"]?.string == "2")

            let paid = try await sandbox.control("/checkouts/lemonsqueezy/\(checkout.providerCheckoutID)/pay", ["email": "ls-buyer@example.com"])
            let subscriptionID = try #require(paid["subscription_id"]?.string)

            let fetched = try await client.subscription(id: subscriptionID)
            #expect(fetched.id == subscriptionID)
            #expect(fetched.status == "active" && !fetched.cancelled)
            #expect(fetched.customerEmail == "ls-buyer@example.com")
            #expect(fetched.variantID == "2" && fetched.productID == "2")
            #expect(fetched.renewsAt != nil && fetched.endsAt == nil)
            #expect(fetched.customerPortalURL != nil)

            let listed = try await client.subscriptions(customerEmail: email)
            #expect(listed.map(\.id) == [subscriptionID])
            #expect(try await client.subscriptions(customerEmail: #require(EmailAddress("nobody@example.com"))).isEmpty)

            let cancelled = try await client.cancelSubscription(id: subscriptionID)
            #expect(cancelled.cancelled && cancelled.status == "cancelled")
            #expect(cancelled.endsAt != nil)
            #expect(try await client.subscription(id: subscriptionID).status == "cancelled")

            let resumed = try await client.resumeSubscription(id: subscriptionID)
            #expect(!resumed.cancelled && resumed.status == "active")
            #expect(resumed.endsAt == nil)

            let portal = try await client.managementURL(subscriptionID: subscriptionID)
            #expect(portal.hasPrefix("http"))
        }
    }

    @Test func webhooksTheSandboxSignsVerify() async throws {
        try await LiveSandbox.with { sandbox in
            let client = sandbox.lemonSqueezy()
            let checkout = try await client.createCheckout(
                CheckoutRequest(
                    variantID: "9", email: EmailAddress("hook@example.com"), appUserID: "user-hook", checkoutID: UUID().uuidString,
                    ownershipProof: "p"))
            _ = try await sandbox.control("/checkouts/lemonsqueezy/\(checkout.providerCheckoutID)/pay")
            await sandbox.server.app.settleDeliveries()
            let deliveries = await sandbox.server.app.deliveries(provider: .lemonSqueezy)
            #expect(!deliveries.isEmpty)
            let verifier = LemonSqueezyWebhookVerifier(secret: Secret(LiveSandbox.lsSecret))
            for delivery in deliveries {
                try verifier.verify(headers: delivery.headers, body: delivery.body, remoteAddress: "127.0.0.1")
                let event = try LemonSqueezyWebhook.normalize(body: delivery.body)
                #expect(event.appUserID == "user-hook", "\(delivery.eventName)")
            }
            let wrong = LemonSqueezyWebhookVerifier(secret: Secret("another-secret"))
            #expect(throws: WebhookVerificationError.self) {
                try wrong.verify(headers: deliveries[0].headers, body: deliveries[0].body, remoteAddress: nil)
            }
        }
    }

    @Test func unauthorizedIsTypedAndKeyFree() async throws {
        try await LiveSandbox.with { sandbox in
            let wrongKey = "ls_wrong_key_do_not_print_0042"
            let error = await #expect(throws: ProviderError.self) { try await sandbox.lemonSqueezy(apiKey: wrongKey).catalog() }
            #expect(error?.kind == .unauthorized)
            #expect(error?.status == 401)
            #expect(error?.provider == .lemonsqueezy)
            #expect(error?.operation == "catalog")
            #expect(error?.message.isEmpty == false)
            #expect(error.map { !"\($0)".contains(wrongKey) && !"\($0)".contains(LiveSandbox.lsKey) } == true)
        }
    }

    @Test func notFoundAndValidation() async throws {
        try await LiveSandbox.with { sandbox in
            let client = sandbox.lemonSqueezy()
            let missing = await #expect(throws: ProviderError.self) { try await client.subscription(id: "987654") }
            #expect(missing?.kind == .notFound && missing?.status == 404 && missing?.operation == "subscription")
            let cancelMissing = await #expect(throws: ProviderError.self) { try await client.cancelSubscription(id: "987654") }
            #expect(cancelMissing?.kind == .notFound && cancelMissing?.operation == "cancelSubscription")
            // Refused before any request: the id would otherwise change the path.
            let unsafe = await #expect(throws: ProviderError.self) { try await client.subscription(id: "1/../../products") }
            #expect(unsafe?.kind == .validation && unsafe?.status == nil)
            let badVariant = await #expect(throws: ProviderError.self) {
                try await client.createCheckout(
                    CheckoutRequest(variantID: "424242", email: nil, appUserID: "u", checkoutID: "c", ownershipProof: "p"))
            }
            #expect(badVariant?.operation == "createCheckout")
            #expect(
                badVariant.map { [.notFound, .validation].contains($0.kind) && $0.status != nil && !$0.message.isEmpty } == true,
                "\(String(describing: badVariant))")
        }
    }

    @Test func rateLimitIsRetriedThenReported() async throws {
        try await LiveSandbox.with(rateLimit: RateLimitSettings(limit: 1, windowSeconds: 1)) { sandbox in
            let client = sandbox.lemonSqueezy(pageSize: 100)
            // Two calls in one 1-second window: the second gets 429 with Retry-After 1
            // and succeeds after waiting (the policy honours up to 3 s).
            _ = try await client.catalog()
            #expect(try await client.catalog().count == 8)
            // A checkout POST is retried after a 429 too (the request was not processed).
            let checkout = try await client.createCheckout(
                CheckoutRequest(variantID: "1", email: nil, appUserID: "u", checkoutID: "c-429", ownershipProof: "p"))
            #expect(!checkout.url.isEmpty)
        }
        try await LiveSandbox.with(rateLimit: RateLimitSettings(limit: 1, windowSeconds: 60)) { sandbox in
            // Retry-After of a minute is more than the policy waits: reported, not slept on.
            let client = sandbox.lemonSqueezy(pageSize: 100)
            _ = try await client.catalog()
            let error = await #expect(throws: ProviderError.self) { try await client.catalog() }
            #expect(error?.kind == .rateLimited && error?.status == 429 && error?.isTransient == true)
            #expect(error?.retryAfter.map { $0 > .seconds(3) } == true)
            #expect(error?.message.isEmpty == false)
        }
    }
}
