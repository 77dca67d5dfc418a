import BillingModel
import Foundation
import Providers
import Testing

/// What Lemon Squeezy and Paystack, which have no preview API, answer for a
/// plan change's preview: from the catalog's prices and the projection's
/// renewal date, without a call (the clients point at a sandbox that would
/// answer; a call would still be wrong, and none is needed).
@Suite struct PlanChangePreviewEstimateTests {
    static let renews = Date(timeIntervalSince1970: 1_780_000_000)

    static func item(_ provider: Provider, _ variant: String, _ price: Int64, _ unit: BillingInterval.Unit) -> CatalogItem {
        CatalogItem(
            provider: provider, productID: "p", variantID: variant, name: variant, price: price, currency: "usd",
            interval: BillingInterval(unit: unit))
    }

    static func request(
        _ effective: PlanChange.Effective, _ proration: PlanChange.Proration, new: CatalogItem?, current: CatalogItem?
    ) -> PlanChangePreviewRequest {
        PlanChangePreviewRequest(
            subscriptionID: "1", change: PlanChange(variantID: new?.variantID ?? "9", effective: effective, proration: proration), newPlan: new,
            currentPlan: current, periodEnd: renews)
    }

    @Test func lemonSqueezyEstimatesFromTheCatalog() async throws {
        try await LiveSandbox.with { sandbox in
            let client = sandbox.lemonSqueezy()
            let monthly = Self.item(.lemonsqueezy, "2", 499, .month), team = Self.item(.lemonsqueezy, "4", 999, .month)
            let yearly = Self.item(.lemonsqueezy, "3", 4999, .year)

            let none = try await client.previewPlanChange(Self.request(.now, .none, new: team, current: monthly))
            #expect(none == PlanChangePreview(currency: "USD", dueNow: 0, next: .init(amount: 999, at: Self.renews), exact: false))
            let prorated = try await client.previewPlanChange(Self.request(.now, .prorate, new: team, current: monthly))
            #expect(prorated == PlanChangePreview(currency: "USD", dueNow: nil, next: .init(amount: 999, at: Self.renews), exact: false))
            // Another interval may move the billing date: only the price is known.
            let annual = try await client.previewPlanChange(Self.request(.now, .none, new: yearly, current: monthly))
            #expect(annual == PlanChangePreview(currency: "USD", dueNow: nil, next: .init(amount: 4999, at: nil), exact: false))
            // A plan the catalog does not hold: nothing known.
            #expect(try await client.previewPlanChange(Self.request(.now, .none, new: nil, current: monthly)) == .unknown)
        }
    }

    @Test func paystackChargesTheNewPlansAmountAtTheNextPaymentDate() async throws {
        try await LiveSandbox.with { sandbox in
            let client = sandbox.paystack()
            let annual = Self.item(.paystack, "PLN_year", 5_000_000, .year), monthly = Self.item(.paystack, "PLN_month", 500_000, .month)
            let preview = try await client.previewPlanChange(Self.request(.periodEnd, .prorate, new: annual, current: monthly))
            #expect(preview == PlanChangePreview(currency: "USD", dueNow: 0, next: .init(amount: 5_000_000, at: Self.renews), exact: true))
            // Not at once (the rules refuse it before; the client says nothing).
            #expect(try await client.previewPlanChange(Self.request(.now, .prorate, new: annual, current: monthly)) == .unknown)
            // Without the plan's amount only "nothing now" is known.
            let unknownPlan = try await client.previewPlanChange(Self.request(.periodEnd, .none, new: nil, current: monthly))
            #expect(unknownPlan == PlanChangePreview(currency: nil, dueNow: 0, next: nil, exact: false))
        }
    }
}
