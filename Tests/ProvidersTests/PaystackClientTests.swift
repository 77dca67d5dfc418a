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

/// ``PaystackClient`` against the provider sandbox served on a real port.
@Suite struct PaystackClientTests {
    @Test func catalogFollowsEveryPage() async throws {
        try await LiveSandbox.with { sandbox in
            let paged = try await sandbox.paystack(pageSize: 2).catalog()
            let single = try await sandbox.paystack(pageSize: 100).catalog()
            // The standard sandbox integration: 5 plans, on 3 pages of 2.
            #expect(paged.map(\.name) == ["Basic Annual", "Basic Monthly", "Premium Annual", "Premium Monthly", "Supporter Weekly"])
            #expect(paged == single)
            let premium = try #require(paged.first { $0.variantID == "PLN_sbxpremmonth01" })
            #expect(premium.productID == "PLN_sbxpremmonth01")
            #expect(premium.price == 250_000 && premium.currency == "NGN" && premium.formattedPrice == "₦2,500.00")
            #expect(premium.interval == BillingInterval(unit: .month))
            #expect(premium.descriptionText == "All premium features, billed monthly")
            #expect(paged.first { $0.name == "Premium Annual" }?.interval == BillingInterval(unit: .year))
            #expect(paged.first { $0.name == "Supporter Weekly" }?.interval == BillingInterval(unit: .week))
        }
    }

    @Test func checkoutPayFetchCancelResume() async throws {
        try await LiveSandbox.with { sandbox in
            let client = sandbox.paystack()
            let email = try #require(EmailAddress("ps-buyer@example.com"))
            let checkoutID = UUID().uuidString.lowercased()
            let checkout = try await client.createCheckout(
                CheckoutRequest(
                    variantID: "PLN_sbxpremmonth01", email: email, appUserID: "user-ps-1", checkoutID: checkoutID, ownershipProof: "proof-ps-1",
                    redirectURL: "https://app.example.com/paid"))
            #expect(checkout.provider == .paystack)
            #expect(checkout.providerCheckoutID.hasPrefix("sf-"))
            #expect(checkout.url.hasPrefix("http") && checkout.accessCode != nil)

            // The transaction carries the plan's amount and our metadata.
            let transaction = try await sandbox.rawGet("/paystack/transaction/verify/\(checkout.providerCheckoutID)", key: LiveSandbox.psKey)
            #expect(transaction["data", "amount"]?.int64 == 250_000)
            #expect(transaction["data", "metadata", "storefront_user_id"]?.string == "user-ps-1")
            #expect(transaction["data", "metadata", "storefront_checkout_id"]?.string == checkoutID)
            #expect(transaction["data", "metadata", "storefront_proof"]?.string == "proof-ps-1")

            let paid = try await sandbox.control("/checkouts/paystack/\(checkout.providerCheckoutID)/pay", ["email": "ps-buyer@example.com"])
            let code = try #require(paid["subscription_code"]?.string)

            let fetched = try await client.subscription(id: code)
            #expect(fetched.id == code && fetched.status == "active" && !fetched.cancelled)
            #expect(fetched.customerEmail == "ps-buyer@example.com")
            #expect(fetched.customerID?.hasPrefix("CUS_") == true)
            #expect(fetched.planCode == "PLN_sbxpremmonth01" && fetched.productName == "Premium Monthly")
            #expect(fetched.emailToken != nil)
            #expect(fetched.nextPaymentDate != nil && fetched.renewsAt == fetched.nextPaymentDate)

            let listed = try await client.subscriptions(customerEmail: email)
            #expect(listed.map(\.id) == [code])
            #expect(try await client.subscriptions(customerEmail: #require(EmailAddress("stranger@example.com"))).isEmpty)

            let cancelled = try await client.cancelSubscription(id: code)
            #expect(cancelled.cancelled)
            #expect(["non-renewing", "cancelled"].contains(cancelled.status))
            #expect(try await client.subscription(id: code).status == cancelled.status)

            let resumed = try await client.resumeSubscription(id: code)
            #expect(resumed.status == "active" && !resumed.cancelled)

            let link = try await client.managementURL(subscriptionID: code)
            #expect(link.hasPrefix("http"))
        }
    }

    @Test func webhooksTheSandboxSignsVerify() async throws {
        try await LiveSandbox.with { sandbox in
            let checkout = try await sandbox.paystack().createCheckout(
                CheckoutRequest(
                    variantID: "PLN_sbxsupportwk01", email: EmailAddress("hook@example.com"), appUserID: "user-ps-hook",
                    checkoutID: UUID().uuidString,
                    ownershipProof: "p"))
            _ = try await sandbox.control("/checkouts/paystack/\(checkout.providerCheckoutID)/pay")
            await sandbox.server.app.settleDeliveries()
            let deliveries = await sandbox.server.app.deliveries(provider: .paystack)
            #expect(!deliveries.isEmpty)
            let allowList = try IPAllowList(["127.0.0.1"])
            let verifier = PaystackWebhookVerifier(secretKey: Secret(LiveSandbox.psKey), allowList: allowList)
            for delivery in deliveries {
                try verifier.verify(headers: delivery.headers, body: delivery.body, remoteAddress: "127.0.0.1")
                #expect(throws: WebhookVerificationError.remoteAddressNotAllowed("10.1.2.3")) {
                    try verifier.verify(headers: delivery.headers, body: delivery.body, remoteAddress: "10.1.2.3")
                }
            }
            let charge = try #require(deliveries.first { $0.eventName == "charge.success" })
            #expect(try PaystackWebhook.normalize(body: charge.body).appUserID == "user-ps-hook")
        }
    }

    @Test func unauthorizedIsTypedAndKeyFree() async throws {
        try await LiveSandbox.with { sandbox in
            let wrongKey = "sk_test_wrong_do_not_print_0099"
            let error = await #expect(throws: ProviderError.self) { try await sandbox.paystack(secretKey: wrongKey).catalog() }
            #expect(error?.kind == .unauthorized && error?.provider == .paystack && error?.operation == "catalog")
            #expect(error?.status == 401)
            #expect(error?.message == "Invalid key")
            #expect(error.map { !"\($0)".contains(wrongKey) && !"\($0)".contains(LiveSandbox.psKey) } == true)
        }
    }

    @Test func notFoundAndValidation() async throws {
        try await LiveSandbox.with { sandbox in
            let client = sandbox.paystack()
            let missing = await #expect(throws: ProviderError.self) { try await client.subscription(id: "SUB_doesnotexist00") }
            #expect(missing?.kind == .notFound && missing?.status == 404 && missing?.message.isEmpty == false)
            let cancelMissing = await #expect(throws: ProviderError.self) { try await client.cancelSubscription(id: "SUB_doesnotexist00") }
            #expect(cancelMissing?.kind == .notFound && cancelMissing?.operation == "cancelSubscription")
            let link = await #expect(throws: ProviderError.self) { try await client.managementURL(subscriptionID: "SUB_doesnotexist00") }
            #expect(link?.kind == .notFound && link?.operation == "managementURL")
            // An unknown plan with an explicit amount reaches initialize, which refuses it.
            let plan = await #expect(throws: ProviderError.self) {
                try await client.createCheckout(
                    CheckoutRequest(
                        variantID: "PLN_nosuchplan00", email: EmailAddress("a@example.com"), appUserID: "u", checkoutID: "c", ownershipProof: "p",
                        amount: 1000))
            }
            #expect(plan?.kind == .validation && plan?.status == 400 && plan?.operation == "createCheckout", "\(String(describing: plan))")
            // Re-using a reference is refused by Paystack with its own code.
            let reference = "sf-fixed-\(UInt32.random(in: 0...UInt32.max))"
            let request = CheckoutRequest(
                variantID: "PLN_sbxbasicmonth1", email: EmailAddress("a@example.com"), appUserID: "u", checkoutID: "c", ownershipProof: "p",
                reference: reference)
            let first = try await client.createCheckout(request)
            #expect(first.providerCheckoutID == reference)
            let duplicate = await #expect(throws: ProviderError.self) { try await client.createCheckout(request) }
            #expect(duplicate?.kind == .validation && duplicate?.status == 400, "\(String(describing: duplicate))")
            // Refused locally: no email (Paystack requires one), and a reference with characters Paystack forbids.
            let noEmail = await #expect(throws: ProviderError.self) {
                try await client.createCheckout(
                    CheckoutRequest(variantID: "PLN_sbxbasicmonth1", email: nil, appUserID: "u", checkoutID: "c", ownershipProof: "p"))
            }
            #expect(noEmail?.kind == .validation && noEmail?.status == nil)
            let badReference = await #expect(throws: ProviderError.self) {
                try await client.createCheckout(
                    CheckoutRequest(
                        variantID: "PLN_sbxbasicmonth1", email: EmailAddress("a@example.com"), appUserID: "u", checkoutID: "c",
                        ownershipProof: "p", reference: "has_underscore"))
            }
            #expect(badReference?.kind == .validation && badReference?.status == nil)
        }
    }

    @Test func rateLimitIsRetriedThenReported() async throws {
        try await LiveSandbox.with(rateLimit: RateLimitSettings(limit: 1, windowSeconds: 1)) { sandbox in
            let client = sandbox.paystack(pageSize: 100)
            _ = try await client.catalog()
            #expect(try await client.catalog().count == 5)
            let checkout = try await client.createCheckout(
                CheckoutRequest(
                    variantID: "PLN_sbxbasicmonth1", email: EmailAddress("rl@example.com"), appUserID: "u", checkoutID: "c", ownershipProof: "p",
                    amount: 100_000))
            #expect(!checkout.url.isEmpty)
        }
        try await LiveSandbox.with(rateLimit: RateLimitSettings(limit: 1, windowSeconds: 60)) { sandbox in
            let client = sandbox.paystack(pageSize: 100)
            _ = try await client.catalog()
            let error = await #expect(throws: ProviderError.self) { try await client.catalog() }
            #expect(error?.kind == .rateLimited && error?.status == 429)
            #expect(error?.code == "rate_limited" && error?.message == "Rate limit exceeded!")
        }
    }
}
