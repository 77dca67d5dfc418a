import BillingModel
import Foundation
import HTTPClient
import JSONCodec
import Providers
import Providers
import ProviderConfiguration
import Webhooks
import Testing

/// ``StripeClient`` over HTTP against the sandbox's emulated Stripe: the
/// form bodies, headers, keys and answers as a Stripe-shaped server sees them.
@Suite("Stripe client against the sandbox")
struct StripeSandboxClientTests {
    /// One expiry for every request: a checkout asked for twice is asked for with the same parameters.
    static let expiry = Date().addingTimeInterval(3600)

    func request(_ price: String, checkoutID: String = UUID().uuidString.lowercased(), user: String = "user-sbx-1") -> CheckoutRequest {
        CheckoutRequest(
            variantID: price, email: EmailAddress("grace@example.com"), appUserID: user, checkoutID: checkoutID,
            ownershipProof: "proof-sbx-1", expiresAt: Self.expiry)
    }

    @Test func theCatalogIsEveryActivePriceOfEveryActiveProduct() async throws {
        try await StripeSandbox.with { sandbox in
            let paged = try await sandbox.client(pageSize: 2).catalog()
            let single = try await sandbox.client(pageSize: 100).catalog()
            #expect(paged == single)
            // Four active products with five active prices; Beta Lab is inactive.
            #expect(
                paged.map(\.variantID) == [
                    "price_SbxPremiumMonthly", "price_SbxPremiumYearly", "price_SbxProIcons", "price_SbxTeamYearly", "price_SbxWallpapers",
                ])
            #expect(paged.map(\.name) == ["Premium – Monthly", "Premium – Yearly", "Pro Icons Pack", "Team", "Wallpaper Collection"])
            let yearly = try #require(paged.first { $0.variantID == "price_SbxPremiumYearly" })
            #expect(yearly.productID == "prod_SbxPremium" && yearly.price == 4999 && yearly.currency == "USD")
            #expect(yearly.interval == BillingInterval(unit: .year) && yearly.formattedPrice == "$49.99" && yearly.testMode)
            #expect(paged.first { $0.variantID == "price_SbxProIcons" }?.interval == nil)
        }
    }

    @Test func aSubscriptionCheckoutIsPaidFetchedCancelledResumedAndManaged() async throws {
        try await StripeSandbox.with { sandbox in
            let client = sandbox.client()
            let checkoutID = UUID().uuidString.lowercased()
            let checkout = try await client.createCheckout(request("price_SbxPremiumMonthly", checkoutID: checkoutID))
            #expect(checkout.provider == StripeClientTests.provider && checkout.providerCheckoutID.hasPrefix("cs_test_"))
            #expect(checkout.url.hasSuffix("/checkout/stripe/\(checkout.providerCheckoutID)"))
            #expect(checkout.testMode == true && checkout.expiresAt != nil)

            // What Stripe stored is what the client sent.
            let stored = try await client.checkoutSessionDocument(id: checkout.providerCheckoutID).json
            #expect(stored["mode"]?.string == "subscription")
            #expect(stored["client_reference_id"]?.string == "user-sbx-1" && stored["customer_email"]?.string == "grace@example.com")
            #expect(stored["metadata", "storefront_checkout_id"]?.string == checkoutID)
            #expect(stored["metadata", "storefront_proof"]?.string == "proof-sbx-1")
            #expect(stored["metadata", "storefront_price_id"]?.string == "price_SbxPremiumMonthly")
            #expect(stored["success_url"]?.string == "https://app.example/done")

            let paid = try await sandbox.call(.post, "/_sandbox/checkouts/stripe/\(checkout.providerCheckoutID)/pay", json: "{}")
            let id = try #require(paid["subscription_id"]?.string)
            let fetched = try await client.subscription(id: id)
            #expect(fetched.status == "active" && !fetched.cancelled && fetched.renewsAt != nil && fetched.endsAt == nil)
            #expect(fetched.variantID == "price_SbxPremiumMonthly" && fetched.productID == "prod_SbxPremium")
            // The subscription carries the claim from subscription_data[metadata].
            let document = try await client.subscriptionDocument(id: id)
            #expect(document.json["metadata", "storefront_user_id"]?.string == "user-sbx-1")
            #expect(document.json["metadata", "storefront_checkout_id"]?.string == checkoutID)

            let cancelled = try await client.cancelSubscription(id: id)
            #expect(cancelled.cancelled && cancelled.status == "active" && cancelled.endsAt == fetched.renewsAt && cancelled.renewsAt == nil)
            #expect(try await client.subscription(id: id).cancelled)
            let resumed = try await client.resumeSubscription(id: id)
            #expect(!resumed.cancelled && resumed.renewsAt == fetched.renewsAt)
            // A second cancel is a new intent: it cancels again rather than replaying the first answer.
            #expect(try await client.cancelSubscription(id: id).cancelled)
            #expect(try await client.resumeSubscription(id: id).cancelled == false)

            let portal = try await client.managementURL(subscriptionID: id)
            #expect(portal.contains("/manage/stripe/\(id)?portal_session=bps_"))

            let listed = try await client.subscriptions(customerEmail: try #require(EmailAddress("grace@example.com")))
            #expect(listed.map(\.id) == [id])
            #expect(listed.first?.customerEmail == "grace@example.com")
            #expect(try await client.subscriptions(customerEmail: try #require(EmailAddress("nobody@example.com"))).isEmpty)

            let page = try await client.subscriptionsPage(createdSince: Date().addingTimeInterval(-3600))
            #expect(page.items.map { $0.json["id"]?.string } == [id] && !page.hasMore)
            #expect(try await client.subscriptionsPage(createdSince: Date().addingTimeInterval(3600)).items.isEmpty)
        }
    }

    @Test func aOneTimeCheckoutPutsTheClaimOnThePayment() async throws {
        try await StripeSandbox.with { sandbox in
            let client = sandbox.client()
            let checkout = try await client.createCheckout(request("price_SbxProIcons"))
            #expect(try await client.checkoutSessionDocument(id: checkout.providerCheckoutID).json["mode"]?.string == "payment")
            _ = try await sandbox.call(.post, "/_sandbox/checkouts/stripe/\(checkout.providerCheckoutID)/pay", json: "{}")
            let session = try await client.checkoutSessionDocument(id: checkout.providerCheckoutID).json
            let paymentID = try #require(session["payment_intent"]?.string)
            let payment = try await client.paymentIntentDocument(id: paymentID).json
            #expect(payment["metadata", "storefront_user_id"]?.string == "user-sbx-1")
            #expect(payment["metadata", "storefront_proof"]?.string == "proof-sbx-1")
            #expect(payment["amount"]?.int64 == 999)
            // The fetched payment reads as the purchase, with its claim.
            let order = try StripeFetchedObject.normalize(
                try await client.paymentIntentDocument(id: paymentID).body, name: "storefront.snapshot.payment", provider: StripeClientTests.provider,
                fetchedAt: Date())
            #expect(order.kind == .orderCreated && order.orderID == paymentID && order.appUserID == "user-sbx-1" && order.amount == 999)
        }
    }

    @Test func theSameCheckoutTwiceIsOneSession() async throws {
        try await StripeSandbox.with { sandbox in
            let client = sandbox.client()
            let checkoutID = UUID().uuidString.lowercased()
            let first = try await client.createCheckout(request("price_SbxProIcons", checkoutID: checkoutID))
            let again = try await client.createCheckout(request("price_SbxProIcons", checkoutID: checkoutID))
            let other = try await client.createCheckout(request("price_SbxProIcons"))
            #expect(first.providerCheckoutID == again.providerCheckoutID && first.url == again.url)
            #expect(other.providerCheckoutID != first.providerCheckoutID)
        }
    }

    /// Stripe runs the POST but its answer never arrives in time: every retry
    /// carries the first attempt's key, so the three attempts make one session
    /// (the sandbox numbers sessions in creation order), and asking again
    /// afterwards gets that session.
    @Test func retriesAfterALostAnswerCarryTheSameKey() async throws {
        try await StripeSandbox.with { sandbox in
            let patient = sandbox.client()
            let before = try await patient.createCheckout(request("price_SbxProIcons"))
            _ = try await sandbox.call(.post, "/_sandbox/faults", json: #"{"api_answer_delay_ms": 800}"#)
            _ = try await sandbox.call(.delete, "/_sandbox/api-requests")
            let checkoutID = UUID().uuidString.lowercased()
            do throws(ProviderError) {
                _ = try await sandbox.client(timeout: .milliseconds(250)).createCheckout(request("price_SbxProIcons", checkoutID: checkoutID))
                Issue.record("an answer came back in time")
            } catch {
                #expect(error.kind == .unavailable)
            }
            let counts = try await sandbox.call(.get, "/_sandbox/api-requests")
            let posts = (counts["stripe", "routes"]?.object ?? [:]).filter { $0.key.hasPrefix("POST") }.compactMap { $0.value.int64 }.reduce(0, +)
            #expect(posts == 3, "the client tried three times")
            _ = try await sandbox.call(.post, "/_sandbox/faults", json: "{}")

            let replayed = try await patient.createCheckout(request("price_SbxProIcons", checkoutID: checkoutID))
            let after = try await patient.createCheckout(request("price_SbxProIcons"))
            #expect(Self.sequence(replayed.providerCheckoutID) == Self.sequence(before.providerCheckoutID).map { $0 + 1 })
            #expect(Self.sequence(after.providerCheckoutID) == Self.sequence(before.providerCheckoutID).map { $0 + 2 })
        }
    }

    /// The sandbox's session number: `cs_test_a1Sbx` + 8 digits + a random tail.
    static func sequence(_ id: String) -> Int? {
        Int(id.dropFirst("cs_test_a1Sbx".count).prefix(8))
    }

    @Test func stripesErrorsBecomeProviderErrors() async throws {
        try await StripeSandbox.with { sandbox in
            let client = sandbox.client()
            let wrongKey = sandbox.client(secretKey: "sk_test_wrong_key_0000")
            let inactive = request("price_SbxBetaLab")
            let calls: [(@Sendable () async throws(ProviderError) -> Void, ProviderError.Kind, String?)] = [
                ({ () async throws(ProviderError) in _ = try await client.subscription(id: "sub_nope") }, .notFound, "resource_missing"),
                ({ () async throws(ProviderError) in _ = try await client.createCheckout(inactive) }, .validation, nil),
                ({ () async throws(ProviderError) in _ = try await wrongKey.catalog() }, .unauthorized, nil),
            ]
            for (call, kind, code) in calls {
                do throws(ProviderError) {
                    try await call()
                    Issue.record("no error")
                } catch {
                    #expect(error.kind == kind)
                    #expect(error.provider == StripeClientTests.provider)
                    if let code { #expect(error.code == code) }
                    #expect(!error.description.contains(StripeSandbox.secretKey) && !error.description.contains("sk_test_wrong_key_0000"))
                }
            }
        }
    }
}
