import BillingModel
import Foundation
import HTTPClient
import JSONCodec
import SandboxKit
import SandboxServer
import Providers
import Testing

/// A plan change through ``StripeClient`` against the sandbox's Stripe: the
/// item's price changes, an interval change starts a new period and is
/// invoiced at once, and the webhooks say so.
extension StripeSandboxClientTests {
    @Test func monthlyToYearlyNowStartsANewPeriodAndIsInvoicedOnce() async throws {
        try await StripeSandbox.with { sandbox in
            let client = sandbox.client()
            let id = try await paidMonthlySubscription(sandbox, client)
            await sandbox.server.app.settleDeliveries()
            let before = await sandbox.server.app.deliveries(provider: .stripe).count

            let changed = try await client.changePlan(
                subscriptionID: id, PlanChange(variantID: "price_SbxPremiumYearly", effective: .now, proration: .prorate))
            #expect(changed.variantID == "price_SbxPremiumYearly" && changed.productID == "prod_SbxPremium" && !changed.cancelled)
            #expect((changed.renewsAt ?? .distantPast) > Date().addingTimeInterval(360 * 86_400), "a new yearly period from now")

            await sandbox.server.app.settleDeliveries()
            let sent = await sandbox.server.app.deliveries(provider: .stripe).dropFirst(before).map(\.eventName)
            #expect(sent == ["invoice.paid", "customer.subscription.updated"], "\(sent)")
            let document = try await client.subscriptionDocument(id: id).json
            let invoiceID = try #require(document["latest_invoice"]?.string)
            let invoice = try await sandbox.call(.get, "/stripe/v1/invoices/\(invoiceID)")
            #expect(invoice["billing_reason"]?.string == "subscription_update")
            // The year less the credit for the unused month.
            #expect((4500...4999).contains(invoice["amount_paid"]?.int64 ?? 0), "\(String(describing: invoice["amount_paid"]))")
            // Its lines as Stripe lists them: the unused month's credit first, then the year.
            let lines = invoice["lines", "data"]?.array ?? []
            #expect(lines.map { $0["pricing", "price_details", "price"]?.string } == ["price_SbxPremiumMonthly", "price_SbxPremiumYearly"])
            #expect(lines.map { $0["parent", "subscription_item_details", "proration"]?.bool } == [true, false])
            #expect(lines.reduce(0) { $0 + ($1["amount"]?.int64 ?? 0) } == invoice["amount_paid"]?.int64)

            // The same price again, or an unknown one, is refused by the sandbox as by Stripe.
            await #expect(throws: ProviderError.self) {
                try await client.changePlan(subscriptionID: id, PlanChange(variantID: "price_Nope", effective: .now, proration: .none))
            }
        }
    }

    @Test func monthlyToYearlyAtPeriodEndWaitsForTheRenewal() async throws {
        try await StripeSandbox.with { sandbox in
            let client = sandbox.client()
            let id = try await paidMonthlySubscription(sandbox, client)
            let before = try await client.subscription(id: id)

            let scheduled = try await client.changePlan(
                subscriptionID: id, PlanChange(variantID: "price_SbxPremiumYearly", effective: .periodEnd, proration: .prorate))
            #expect(scheduled.variantID == "price_SbxPremiumMonthly" && scheduled.pendingVariantID == "price_SbxPremiumYearly")
            #expect(scheduled.pendingChangeAt == before.renewsAt)
            let document = try await client.subscriptionDocument(id: id).json
            let scheduleID = try #require(document["schedule"]?.string)
            let schedule = try await sandbox.call(.get, "/stripe/v1/subscription_schedules/\(scheduleID)")
            #expect(schedule["phases"]?.array?.count == 2 && schedule["status"]?.string == "active")
            // A second change while one is scheduled is refused.
            await #expect(throws: ProviderError.self) {
                try await client.changePlan(subscriptionID: id, PlanChange(variantID: "price_SbxPremiumYearly", effective: .now, proration: .none))
            }

            // At the renewal the yearly plan takes over and the schedule lets go.
            _ = try await sandbox.call(.post, "/_sandbox/stripe/subscriptions/\(id)/renew", json: "{}")
            let renewed = try await client.subscription(id: id)
            #expect(renewed.variantID == "price_SbxPremiumYearly" && renewed.pendingVariantID == nil)
            #expect((renewed.renewsAt ?? .distantPast) > (before.renewsAt ?? .distantFuture).addingTimeInterval(360 * 86_400))
            #expect(try await client.subscriptionDocument(id: id).json["schedule"] == .null)
        }
    }

}
