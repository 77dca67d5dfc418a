import BillingModel

extension PaystackClient {
    /// Paystack changes plans at period end only (the current subscription
    /// ends, the new plan's starts at its `next_payment_date`), and has no
    /// proration: nothing is charged now, and the new plan's amount at that
    /// date. Answered without a call, from the catalog's plan amount.
    public func previewPlanChange(_ request: PlanChangePreviewRequest) async throws(ProviderError) -> PlanChangePreview {
        guard request.change.effective == .periodEnd else { return .unknown }
        return .atRenewal(request, exact: true)
    }
}
