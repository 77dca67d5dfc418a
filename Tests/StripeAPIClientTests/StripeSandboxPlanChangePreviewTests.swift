import BillingModel
import Foundation
import HTTPClient
import JSONCodec
import Providers
import SandboxKit
import SandboxServer
import Testing

/// The sandbox's `POST /v1/invoices/create_preview` through ``StripeClient``:
/// what a preview says is what the change then charges, for a change of
/// interval and within one.
extension StripeSandboxClientTests {
    static func plan(_ price: String, _ amount: Int64, _ unit: BillingInterval.Unit) -> CatalogItem {
        CatalogItem(
            provider: .stripe, productID: "p", variantID: price, name: price, price: amount, currency: "usd", interval: BillingInterval(unit: unit))
    }

    func previewRequest(_ id: String, _ price: CatalogItem, _ proration: PlanChange.Proration) -> PlanChangePreviewRequest {
        PlanChangePreviewRequest(
            subscriptionID: id, change: PlanChange(variantID: price.variantID, effective: .now, proration: proration), newPlan: price,
            currentPlan: nil, periodEnd: nil)
    }

    /// A paid monthly Premium subscription's id.
    func paidMonthlySubscription(_ sandbox: StripeSandbox, _ client: StripeClient) async throws -> String {
        let checkout = try await client.createCheckout(request("price_SbxPremiumMonthly"))
        let paid = try await sandbox.call(.post, "/_sandbox/checkouts/stripe/\(checkout.providerCheckoutID)/pay", json: "{}")
        return try #require(paid["subscription_id"]?.string)
    }

    /// The amount of the invoice the last change paid.
    func latestInvoiceAmount(_ sandbox: StripeSandbox, _ client: StripeClient, _ id: String) async throws -> Int64 {
        let invoiceID = try #require(try await client.subscriptionDocument(id: id).json["latest_invoice"]?.string)
        return try #require(try await sandbox.call(.get, "/stripe/v1/invoices/\(invoiceID)")["amount_paid"]?.int64)
    }

    @Test func aPreviewSaysWhatTheChangeThenCharges() async throws {
        try await StripeSandbox.with { sandbox in
            let client = sandbox.client()
            let id = try await paidMonthlySubscription(sandbox, client)
            await sandbox.server.app.settleDeliveries()
            let deliveries = await sandbox.server.app.deliveries(provider: .stripe).count

            // Monthly → yearly: the year now, less the unused month.
            let yearly = Self.plan("price_SbxPremiumYearly", 4999, .year)
            let preview = try await client.previewPlanChange(previewRequest(id, yearly, .prorate))
            #expect(preview.exact && preview.currency == "USD")
            let due = try #require(preview.dueNow)
            #expect((4500..<4999).contains(due), "\(preview)")
            await sandbox.server.app.settleDeliveries()
            #expect(await sandbox.server.app.deliveries(provider: .stripe).count == deliveries, "a preview sends nothing")
            #expect(try await client.subscription(id: id).variantID == "price_SbxPremiumMonthly", "a preview changes nothing")

            let changed = try await client.changePlan(
                subscriptionID: id, PlanChange(variantID: yearly.variantID, effective: .now, proration: .prorate))
            #expect(try await latestInvoiceAmount(sandbox, client, id) == due)
            let next = try #require(preview.next)
            #expect(next.amount == 4999 && abs((next.at ?? .distantPast).timeIntervalSince(changed.renewsAt ?? .distantFuture)) < 5)

            // Yearly → team yearly: the same period, the prorated difference now.
            let team = Self.plan("price_SbxTeamYearly", 19_999, .year)
            let upgrade = try await client.previewPlanChange(previewRequest(id, team, .prorate))
            let upgradeDue = try #require(upgrade.dueNow)
            #expect((14_900...15_000).contains(upgradeDue), "\(upgrade)")
            #expect(upgrade.next == .init(amount: 19_999, at: changed.renewsAt))
            // Without proration nothing now, the team price at the renewal.
            let unprorated = try await client.previewPlanChange(previewRequest(id, team, .none))
            #expect(unprorated == PlanChangePreview(currency: "USD", dueNow: 0, next: .init(amount: 19_999, at: changed.renewsAt), exact: true))
            _ = try await client.changePlan(subscriptionID: id, PlanChange(variantID: team.variantID, effective: .now, proration: .prorate))
            #expect(try await latestInvoiceAmount(sandbox, client, id) == upgradeDue)
        }
    }

    @Test func thePreviewRefusesWhatTheUpdateRefuses() async throws {
        try await StripeSandbox.with { sandbox in
            let client = sandbox.client()
            let id = try await paidMonthlySubscription(sandbox, client)
            await #expect(throws: ProviderError.self) {
                try await client.previewPlanChange(previewRequest(id, Self.plan("price_Nope", 1, .month), .none))
            }
            await #expect(throws: ProviderError.self) {
                try await client.previewPlanChange(previewRequest("sub_nope", Self.plan("price_SbxPremiumYearly", 4999, .year), .none))
            }
        }
    }
}
