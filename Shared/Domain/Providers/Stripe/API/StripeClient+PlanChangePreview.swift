import BillingModel
import Foundation
import HTTPClient
import JSONCodec
import Webhooks

extension StripeClient {
    /// Reads the subscription for its item and period, then asks Stripe.
    ///
    /// Now: `POST /v1/invoices/create_preview` with `subscription`,
    /// `subscription_details[items][0][id]`, `[price]`,
    /// `subscription_details[proration_behavior]` as the change would send it
    /// and `subscription_details[proration_date]` now. The preview's lines that
    /// start within the current period (the prorations, or a new period that
    /// an interval change starts now) are charged now; lines from the period's
    /// end on are the next invoice. A negative sum now (a downgrade's credit)
    /// charges nothing and is taken off the next invoice, as Stripe does with
    /// the customer's balance.
    ///
    /// At period end: nothing now, the new price at `current_period_end`
    /// (what the subscription schedule then bills); no preview call.
    /// - Throws: ``ProviderError`` with code `plan_change_pending` when a
    ///   schedule is attached, as ``changePlan(subscriptionID:_:)`` does.
    public func previewPlanChange(_ request: PlanChangePreviewRequest) async throws(ProviderError) -> PlanChangePreview {
        let operation = "previewPlanChange"
        let change = request.change
        try checkID(request.subscriptionID, operation, what: "subscription id")
        try checkID(change.variantID, operation, what: "price id")
        let current = try await send(StripeRequest(operation: operation, method: .get, path: "/v1/subscriptions/\(request.subscriptionID)"))
        guard let parsed = try? StripeSubscription(current.json), let itemID = parsed.itemID, let periodEnd = parsed.currentPeriodEnd else {
            throw failure(operation, .decoding, "subscription has no item or period")
        }
        guard parsed.scheduleID == nil else {
            throw ProviderError(
                provider: provider, operation: operation, kind: .validation, message: "a change is already scheduled", code: "plan_change_pending")
        }
        var known = request
        known.periodEnd = periodEnd
        if change.effective == .periodEnd { return .atRenewal(known, exact: true) }
        var form = [
            StripeField("subscription", .string(parsed.id)),
            StripeField("subscription_details[items][0][id]", .string(itemID)),
            StripeField("subscription_details[items][0][price]", .string(change.variantID)),
            StripeField("subscription_details[proration_behavior]", .string(change.proration == .prorate ? "always_invoice" : "none")),
        ]
        if change.proration == .prorate {
            form.append(StripeField("subscription_details[proration_date]", .string(String(Int64(now().timeIntervalSince1970)))))
        }
        // Nothing is created; the key only lets a retry after a lost answer be sent again.
        let answer = try await send(
            StripeRequest(
                operation: operation, method: .post, path: "/v1/invoices/create_preview", form: form, idempotencyKey: try randomKey(operation)))
        guard let preview = StripeInvoicePreview(answer.json) else { throw failure(operation, .decoding, "answer is not an invoice") }
        return preview.planChange(periodEnd: periodEnd, newPrice: request.newPlan?.price)
    }
}

/// The parts of a preview invoice a plan change's preview reads: its
/// currency and each line's amount and period.
struct StripeInvoicePreview {
    struct Line {
        var amount: Int64
        var start: Date
        var end: Date
    }

    var currency: String
    var lines: [Line]

    init?(_ json: JSONValue) {
        guard json["object"]?.string == "invoice", let currency = json["currency"]?.string, currency.utf8.count == 3,
            let data = json["lines", "data"]?.array
        else { return nil }
        var lines: [Line] = []
        for line in data {
            guard let amount = line["amount"]?.int64, let start = line["period", "start"]?.int64, let end = line["period", "end"]?.int64 else {
                return nil
            }
            lines.append(
                Line(amount: amount, start: Date(timeIntervalSince1970: TimeInterval(start)), end: Date(timeIntervalSince1970: TimeInterval(end))))
        }
        self.currency = currency.uppercased()
        self.lines = lines
    }

    /// Split at `periodEnd`: what starts before it is invoiced now, the rest at the renewal.
    /// - Parameter newPrice: the new price's amount, for the next charge when the preview holds no renewal.
    func planChange(periodEnd: Date, newPrice: Int64?) -> PlanChangePreview {
        let now = lines.filter { $0.start < periodEnd }
        let later = lines.filter { $0.start >= periodEnd }
        let total = now.reduce(Int64(0)) { $0 + $1.amount }
        let credit = min(total, 0)
        let next: PlanChangePreview.Charge?
        if let first = later.map(\.start).min() {
            next = PlanChangePreview.Charge(amount: max(later.reduce(credit) { $0 + $1.amount }, 0), at: first)
        } else if let newPrice {
            // The new period the change leaves behind ends when its lines end (a new period for an interval change).
            next = PlanChangePreview.Charge(amount: max(newPrice + credit, 0), at: now.map(\.end).max() ?? periodEnd)
        } else {
            next = nil
        }
        return PlanChangePreview(currency: currency, dueNow: max(total, 0), next: next, exact: true)
    }
}
