import BillingModel

extension LemonSqueezyClient {
    /// Lemon Squeezy has no preview of a plan change, so this answers without
    /// a call from what its documentation fixes, always as an estimate (tax
    /// and Lemon Squeezy's own proration are not known here):
    /// `none` (`disable_prorations`) charges nothing now and the new price from
    /// the next renewal; `prorate` (`invoice_immediately`) charges a prorated
    /// difference now whose amount only Lemon Squeezy computes. A change of
    /// interval may move the billing date or charge at once, so then only the
    /// new price is known.
    public func previewPlanChange(_ request: PlanChangePreviewRequest) async throws(ProviderError) -> PlanChangePreview {
        guard let plan = request.newPlan else { return .unknown }
        if request.changesInterval {
            return PlanChangePreview(currency: plan.currency, dueNow: nil, next: .init(amount: plan.price, at: nil), exact: false)
        }
        switch request.change.proration {
        case .none: return .atRenewal(request, exact: false)
        case .prorate:
            return PlanChangePreview(currency: plan.currency, dueNow: nil, next: .init(amount: plan.price, at: request.periodEnd), exact: false)
        }
    }
}
