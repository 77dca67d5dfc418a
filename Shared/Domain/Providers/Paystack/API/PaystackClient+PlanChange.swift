import BillingModel
import Foundation
import HTTPClient
import JSONCodec

extension PaystackClient {
    /// Paystack has no plan change: at the period end only, by ending the
    /// subscription there and starting the new plan's from then.
    public var planChangeTimings: Set<PlanChange.Effective> { [.periodEnd] }

    /// Changes the plan at the end of the paid period the way Paystack's
    /// subscriptions allow (docs/plan-changes.md): reads the subscription
    /// (`GET /subscription/{code}`: customer, card authorization,
    /// `next_payment_date`, `email_token`), stops its renewal (`POST
    /// /subscription/disable`), then creates the new plan's subscription for
    /// the same customer and card from that date (`POST /subscription` with
    /// `customer`, `plan`, `authorization`, `start_date`), whose first charge
    /// is then. Nothing is charged now; the buyer keeps the paid period.
    /// `proration` is ignored: at the period end nothing of it is left to credit.
    ///
    /// The order never lets both renew, so the buyer is never charged twice
    /// for one period: the renewal stops before the new subscription exists.
    /// A creation Paystack refused (or that certainly never reached it) is
    /// undone by enabling the subscription again (`POST /subscription/enable`).
    /// A creation whose answer was lost (timeout, 5xx) is not undone: it may
    /// have been made, and enabling the old one then would charge twice; the
    /// caller gets `.unavailable` and the subscription stays non-renewing.
    /// `POST /subscription` is never repeated (it takes no idempotency key).
    ///
    /// - Returns: the subscription as it is now (non-renewing until the period
    ///   end) with the change pending, and the new one as its ``ProviderSubscription/successor``.
    /// - Throws: ``ProviderError``: `.validation` with code
    ///   `plan_change_timing_unsupported` for `now`; `.validation` for a
    ///   subscription that does not renew (nothing to change at its end).
    public func changePlan(subscriptionID code: String, _ change: PlanChange) async throws(ProviderError) -> ProviderSubscription {
        let operation = "changePlan"
        try checkCode(code, operation)
        guard change.effective == .periodEnd else {
            throw transport.failure(
                operation, .validation, message: "Paystack cannot change a plan now, only at the period end", code: "plan_change_timing_unsupported")
        }
        guard ProviderIDs.isSafe(change.variantID) else {
            throw transport.failure(operation, .validation, message: "plan code has unexpected characters")
        }
        let document = try await transport.send(operation, .get, "/subscription/\(code)", retry: .idempotent)
        guard let data = document["data"], var current = PaystackMapper.subscription(data) else {
            throw transport.failure(operation, .decoding, message: "response is not a subscription")
        }
        guard current.status == "active" else {
            throw transport.failure(
                operation, .validation, message: "only an active subscription renews into another plan (status is \(current.status))")
        }
        guard let customer = current.customerID, let authorization = data["authorization", "authorization_code"]?.string,
            let periodEnd = current.nextPaymentDate, let token = current.emailToken
        else {
            throw transport.failure(
                operation, .decoding, message: "subscription lacks its customer code, authorization, next_payment_date or email_token")
        }
        let toggle: JSONValue = ["code": .string(code), "token": .string(token)]
        _ = try await transport.send(operation, .post, "/subscription/disable", body: toggle, retry: .idempotent)
        let body: JSONValue = [
            "customer": .string(customer), "plan": .string(change.variantID), "authorization": .string(authorization),
            // Paystack's own text of the date, to the millisecond it wrote.
            "start_date": .string(data["next_payment_date"]?.string ?? Timestamp.format(periodEnd)),
        ]
        let created: JSONValue
        do {
            created = try await transport.send(operation, .post, "/subscription", body: body, retry: .unprocessedOnly)
        } catch {
            // Refused: the old subscription renews again, as before the request.
            if error.kind != .unavailable {
                _ = try? await transport.send(operation, .post, "/subscription/enable", body: toggle, retry: .idempotent)
            }
            throw error
        }
        guard let successor = created["data", "subscription_code"]?.string, ProviderIDs.isSafe(successor) else {
            // Made, but which one is unknown: the old one stays non-renewing (never two renewing).
            throw transport.failure(operation, .decoding, message: "create subscription response lacks data.subscription_code")
        }
        current.status = "non-renewing"
        current.cancelled = true
        current.renewsAt = nil
        current.endsAt = periodEnd
        current.pendingVariantID = change.variantID
        current.pendingChangeAt = periodEnd
        current.successor = ObservedSubscription.Successor(
            subscriptionID: successor, status: created["data", "status"]?.string ?? "active", startsAt: periodEnd)
        return current
    }
}
