import Foundation
import BillingModel
import Providers
import HTTPClient
import JSONCodec
import SandboxKit
import SandboxServer
import Testing
@testable import Webhooks

/// `changePlan` against the in-process sandbox: the `PATCH` Lemon Squeezy
/// documents (`variant_id`, `invoice_immediately`, `disable_prorations`), what
/// the sandbox makes of it, and the refusals made before any call.
@Suite("Lemon Squeezy plan change")
struct LemonSqueezyPlanChangeTests {
    /// A paid monthly Premium subscription (variant 2) in the sandbox.
    func subscribe(_ sandbox: LiveSandbox, _ client: LemonSqueezyClient, email: String) async throws -> String {
        let checkout = try await client.createCheckout(
            CheckoutRequest(
                variantID: "2", email: EmailAddress(email), appUserID: "user-plan", checkoutID: UUID().uuidString, ownershipProof: "p"))
        let paid = try await sandbox.control("/checkouts/lemonsqueezy/\(checkout.providerCheckoutID)/pay", ["email": email])
        return try #require(paid["subscription_id"]?.string)
    }

    @Test func monthlyToAnnualNowWithProrationChargesNowAndStartsANewYear() async throws {
        try await LiveSandbox.with { sandbox in
            let client = sandbox.lemonSqueezy()
            let id = try await subscribe(sandbox, client, email: "plan-now@example.com")
            await sandbox.server.app.settleDeliveries()
            let before = await sandbox.server.app.deliveries(provider: .lemonSqueezy).count

            let changed = try await client.changePlan(subscriptionID: id, PlanChange(variantID: "3", effective: .now, proration: .prorate))
            #expect(changed.variantID == "3" && changed.productID == "2" && changed.status == "active")
            let renews = try #require(changed.renewsAt)
            #expect(renews > Date().addingTimeInterval(360 * 86_400), "an annual plan renews a year from the change")

            await sandbox.server.app.settleDeliveries()
            let sent = await sandbox.server.app.deliveries(provider: .lemonSqueezy).dropFirst(before).map(\.eventName)
            #expect(sent == ["subscription_updated", "subscription_payment_success"], "\(sent)")
            let invoice = try #require(await sandbox.server.app.deliveries(provider: .lemonSqueezy, event: "subscription_payment_success").last)
            let event = try LemonSqueezyWebhook.normalize(body: invoice.body)
            // The year (4999) less the credit for the unused month (at most 499).
            #expect((4500...4999).contains(event.amount ?? 0), "\(String(describing: event.amount))")
        }
    }

    @Test func withoutProrationTheSameIntervalChargesNothingNow() async throws {
        try await LiveSandbox.with { sandbox in
            let client = sandbox.lemonSqueezy()
            let id = try await subscribe(sandbox, client, email: "plan-none@example.com")
            // Supporter Membership (variant 9) is monthly too, of another product.
            await sandbox.server.app.settleDeliveries()
            let before = await sandbox.server.app.deliveries(provider: .lemonSqueezy).count
            let changed = try await client.changePlan(subscriptionID: id, PlanChange(variantID: "9", effective: .now, proration: .none))
            #expect(changed.variantID == "9" && changed.productID == "7")
            await sandbox.server.app.settleDeliveries()
            let sent = await sandbox.server.app.deliveries(provider: .lemonSqueezy).dropFirst(before).map(\.eventName)
            #expect(sent == ["subscription_updated"], "\(sent)")
        }
    }

    @Test func refusalsAreMadeBeforeAnyCall() async throws {
        try await LiveSandbox.with { sandbox in
            let client = sandbox.lemonSqueezy()
            #expect(client.planChangeTimings == [.now])
            await #expect(throws: ProviderError.self) {
                try await client.changePlan(subscriptionID: "1", PlanChange(variantID: "3", effective: .periodEnd, proration: .prorate))
            }
            await #expect(throws: ProviderError.self) {
                try await client.changePlan(subscriptionID: "1", PlanChange(variantID: "price_x", effective: .now, proration: .prorate))
            }
            // A one-time variant is refused by the provider (422).
            let id = try await subscribe(sandbox, client, email: "plan-bad@example.com")
            do throws(ProviderError) {
                _ = try await client.changePlan(subscriptionID: id, PlanChange(variantID: "1", effective: .now, proration: .prorate))
                Issue.record("a one-time variant was accepted")
            } catch {
                #expect(error.kind == .validation)
            }
        }
    }
}
