import Catalog
import Foundation
import HTTPServer
import BillingModel
import Entitlements
import Providers
import Telemetry

/// `GET /api/subscription/change/preview`: what a plan change would charge
/// now and next, where the provider can say (docs/plan-changes.md). The same
/// rules as the change (``PlanChangeRules``), the same refusals; nothing is
/// changed and no command is published.
struct PlanChangePreviewer: Sendable {
    let commander: SubscriptionCommander
    /// The prices of the new and the current plan, for providers that answer without a call.
    let catalog: CatalogCache

    func preview(_ body: PlanChangeRequest, user: AppUser, logger: Logger) async throws -> PlanChangePreviewResponse {
        let (target, effective, proration) = try body.checked()
        if let code = body.subscriptionCode { try SubscriptionCommander.checkCharacters(code) }
        let (client, owned) = try await commander.planChangeSubject(
            to: target, effective: effective, code: body.subscriptionCode, user: user, at: commander.now())
        let change = PlanChange(variantID: target.rawID, effective: effective, proration: proration)
        return try await Self.ask(client, owned: owned, change: change, plans: plan, metrics: commander.metrics, logger: logger)
    }

    /// Asks `client` what `change` of `owned` would charge, telling it the
    /// catalog's new and current plan and the projection's renewal date.
    /// - Throws: ``HTTPError``: the provider's refusal (409 `plan_change_pending`, 409 `provider_refused`, 502/503).
    static func ask(
        _ client: any PaymentProvider, owned: SubscriptionState, change: PlanChange, plans: (CatalogID) -> CatalogItem?, metrics: CheckoutMetrics,
        logger: Logger
    ) async throws(HTTPError) -> PlanChangePreviewResponse {
        let catalogID = { (raw: String?) in raw.flatMap { CatalogID(provider: owned.provider, rawID: $0) } }
        let request = PlanChangePreviewRequest(
            subscriptionID: owned.subscriptionID, change: change, newPlan: catalogID(change.variantID).flatMap(plans),
            currentPlan: catalogID(owned.variantID).flatMap(plans), periodEnd: owned.renewsAt)
        let preview: PlanChangePreview
        do {
            preview = try await client.previewPlanChange(request)
        } catch {
            metrics.providerErrors(owned.provider, kind: error.kind.rawValue).increment()
            logger.warning("provider refused a plan change preview", metadata: ["provider": owned.provider.rawValue, "error": error.description])
            throw SubscriptionCommander.planChangeRefusal(error, "preview a plan change of")
        }
        let subject = PlanChangeSubject(
            provider: owned.provider, subscriptionCode: owned.subscriptionID,
            variantId: catalogID(change.variantID)?.description ?? change.variantID, effective: change.effective, proration: change.proration)
        return PlanChangePreviewResponse(subject: subject, preview: preview)
    }

    /// The catalog's item for `id`, if it is loaded and holds it.
    private func plan(_ id: CatalogID) -> CatalogItem? {
        if case .found(let item) = catalog.lookup(id) { return item }
        return nil
    }
}

extension PlanChangeRequest {
    /// The preview's query: `variantId`, `effective`, `proration`, `subscription_code`.
    init(query: (String) -> String?) {
        self.init(
            variantId: query("variantId") ?? "", effective: query("effective"), proration: query("proration"),
            subscriptionCode: query("subscription_code"))
    }
}

/// The answer of a preview: the change asked for and what it would charge,
/// in minor units; `null` where the provider cannot say, `exact: false` for an estimate.
struct PlanChangePreviewResponse: Encodable, Sendable {
    var success = true
    var subject: PlanChangeSubject
    var preview: PlanChangePreview

    enum CodingKeys: String, CodingKey {
        case success, currency, next, exact, amount, at
        case dueNow = "due_now"
    }

    /// The subject's fields, then the amounts, `null` where unknown, in the same object.
    func encode(to encoder: any Encoder) throws {
        try subject.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(success, forKey: .success)
        try c.encode(preview.currency, forKey: .currency)
        if let due = preview.dueNow {
            var nested = c.nestedContainer(keyedBy: CodingKeys.self, forKey: .dueNow)
            try nested.encode(due, forKey: .amount)
        } else {
            try c.encodeNil(forKey: .dueNow)
        }
        if let next = preview.next {
            var nested = c.nestedContainer(keyedBy: CodingKeys.self, forKey: .next)
            try nested.encode(next.amount, forKey: .amount)
            try nested.encode(next.at.map(Timestamp.format), forKey: .at)
        } else {
            try c.encodeNil(forKey: .next)
        }
        try c.encode(preview.exact, forKey: .exact)
    }
}
