import Foundation

extension StorefrontClient {
    /// Moves the user's subscription to another plan of its product group
    /// (`POST /api/subscription/change`), e.g. monthly to annual. The
    /// entitlement follows the new plan once the provider confirms.
    ///
    /// One call is one change: it carries one `Idempotency-Key`, and is sent
    /// again with it after a network failure or a 409 "in progress", so the
    /// server changes the plan at most once.
    /// - Parameters:
    ///   - variantID: the new plan's ``Product/variantID``.
    ///   - effective: now, or at the end of the paid period (not every provider offers both).
    ///   - proration: credit and charge the difference now, or not.
    ///   - subscriptionCode: which subscription, when the user has several of the group.
    /// - Throws: ``StorefrontError``; a 422 names why a change is refused (another
    ///   product group, a timing the provider does not offer, the same plan).
    @discardableResult
    public func changePlan(
        to variantID: String, effective: PlanChangeTiming = .now, proration: PlanChangeProration = .prorate, subscriptionCode: String? = nil
    ) async throws(StorefrontError) -> PlanChangeResult {
        let key = UUID().uuidString.lowercased()
        let body = try Self.encode(
            PlanChangeBody(variantId: variantID, effective: effective, proration: proration, subscriptionCode: subscriptionCode))
        var attempt = 1
        while true {
            do throws(StorefrontError) {
                let reply = try await send("POST", "api/subscription/change", body: body, headers: ["Idempotency-Key": key])
                let result = try decode(PlanChangeResult.self, reply.data, what: "plan change")
                invalidateUserReads()
                // The projection takes a moment to show the change; then tell observers.
                Task { [weak self] in
                    try? await Task.sleep(for: .seconds(1))
                    _ = try? await self?.entitlements(cachePolicy: .reload)
                }
                return result
            } catch {
                guard attempt < options.checkoutAttempts, Self.worthRepeating(error) else { throw error }
                attempt += 1
                do { try await Task.sleep(for: .milliseconds(500 * attempt)) } catch { throw .cancelled }
            }
        }
    }
}

extension StorefrontClient {
    /// What ``changePlan(to:effective:proration:subscriptionCode:)`` with the
    /// same arguments would charge now and next
    /// (`GET /api/subscription/change/preview`), to show before the user
    /// confirms. Nothing changes. The server checks the change as it would
    /// the change itself, so a refusal here is the change's refusal.
    /// - Parameters:
    ///   - variantID: the new plan's ``Product/variantID``.
    ///   - effective: now, or at the end of the paid period.
    ///   - proration: credit and charge the difference now, or not.
    ///   - subscriptionCode: which subscription, when the user has several of the group.
    /// - Returns: the amounts the provider can say; ``PlanChangePreview/isExact`` is false for an estimate.
    /// - Throws: ``StorefrontError``; a 422 names why the change would be refused.
    public func previewPlanChange(
        to variantID: String, effective: PlanChangeTiming = .now, proration: PlanChangeProration = .prorate, subscriptionCode: String? = nil
    ) async throws(StorefrontError) -> PlanChangePreview {
        var fields = [("variantId", variantID), ("effective", effective.rawValue), ("proration", proration.rawValue)]
        if let subscriptionCode { fields.append(("subscription_code", subscriptionCode)) }
        let query = fields.map { name, value in "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: Self.queryValueAllowed) ?? "")" }
        let reply = try await send("GET", "api/subscription/change/preview?" + query.joined(separator: "&"))
        return try decode(PlanChangePreview.self, reply.data, what: "plan change preview")
    }
}
