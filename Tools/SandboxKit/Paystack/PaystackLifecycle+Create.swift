import Foundation

extension PaystackLifecycle {
    /// `POST /subscription`: subscribes an existing customer to a plan with
    /// one of their saved card authorizations (the newest when none is
    /// named), as Paystack's "Create Subscription" documents. With a
    /// `start_date` in the future nothing is charged now: the first charge
    /// is due then (`next_payment_date`), when `renew` takes it. Without one
    /// (or with one already past) the first charge is taken at once.
    /// Sends `subscription.create` (no `email_token`, as documented), then
    /// for a charge at once the cycle's `invoice.create`, `charge.success`, `invoice.update`.
    func createSubscription(
        customer key: String, planCode: String, authorizationCode: String?, startDate: Date?, state: inout SandboxState
    ) throws(SandboxError) -> (subscription: PSSubscription, events: [OutgoingWebhook]) {
        guard let customer = state.psCustomers.values.first(where: { $0.code == key }) ?? state.psCustomer(email: key) else {
            throw .notFound("Customer not found")
        }
        guard let plan = resources.catalog.plans.first(where: { $0.planCode == planCode }) else { throw .notFound("Plan not found") }
        // A customer's authorizations are those of their paid transactions.
        let saved = state.psTransactions.values.filter { $0.customerID == customer.id && $0.status != "abandoned" }
            .sorted { $0.id > $1.id }.compactMap(\.authorization)
        guard let newest = saved.first else { throw .notFound("The customer specified has no saved authorizations") }
        let authorization: PSAuthorization
        if let authorizationCode {
            guard let named = saved.first(where: { $0.code == authorizationCode }) else { throw .notFound("Authorization not found") }
            authorization = named
        } else {
            authorization = newest
        }
        let start = startDate.map { max($0, now) } ?? now
        let id = state.next(.psSubscription)
        var s = PSSubscription(
            id: id, code: Formatting.code("SUB_", id), emailToken: Formatting.code("tok", id * 7919), status: "active",
            amount: plan.amount, planID: plan.id, customerID: customer.id, authorization: authorization,
            start: start, nextPaymentDate: start, openInvoice: nil, cancelledAt: nil, paymentsCount: 0, invoiceIDs: [],
            createdAt: now, updatedAt: now)
        state.psSubscriptions[id] = s
        var events = [webhooks.event("subscription.create", webhooks.subscriptionData(s, state: state, includeToken: false))]
        if start <= now {
            events += try apply(.renew, subscriptionCode: s.code, state: &state)
            s = state.psSubscriptions[id] ?? s
        }
        return (s, events)
    }
}
