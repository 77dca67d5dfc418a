import Foundation

/// Subscriptions (create, fetch, list, disable, enable, manage link) and customers.
extension PaystackAPI {
    /// `{customer, plan, authorization?, start_date?}` (customer: email or
    /// `CUS_` code; plan: plan code; start_date: ISO 8601). Answers the new
    /// subscription with `customer` and `plan` as numeric ids, as Paystack's
    /// example does (see ``PaystackLifecycle/createSubscription(customer:planCode:authorizationCode:startDate:state:)``).
    func createSubscription(_ request: SandboxRequest) throws(SandboxError) -> HandlerResult {
        guard let body = jsonBody(request) else { throw .invalid("Invalid JSON body") }
        guard let customer = body["customer"]?.stringValue, !customer.isEmpty else { throw .invalid("Customer email or code is required") }
        guard let plan = body["plan"]?.stringValue, !plan.isEmpty else { throw .invalid("Plan code is required") }
        var start: Date?
        if let text = body["start_date"]?.stringValue {
            guard let date = Formatting.parseISO(text) else { throw .invalid("start_date must be an ISO 8601 date") }
            // Half a microsecond above the microsecond it names: the formats
            // truncate, and a parsed `.123` may be stored as `.12299999…`.
            start = Date(timeIntervalSince1970: ((date.timeIntervalSince1970 * 1_000_000).rounded() + 0.5) / 1_000_000)
        }
        let authorization = body["authorization"]?.stringValue
        let lifecycle = lifecycle
        let resources = resources
        let (data, events) = try store.withState { (state) throws(SandboxError) -> (JSONValue, [OutgoingWebhook]) in
            let made = try lifecycle.createSubscription(
                customer: customer, planCode: plan, authorizationCode: authorization, startDate: start, state: &state)
            return (resources.subscriptionInPlan(made.subscription, state: state), made.events)
        }
        return HandlerResult(resources.ok("Subscription successfully created", data: data), events: events)
    }

    func getSubscription(_ key: String) throws(SandboxError) -> SandboxResponse {
        let data: JSONValue? = store.read { state in
            state.psSubscriptions.values.first { $0.code == key || String($0.id) == key }.map { resources.subscription($0, state: state) }
        }
        guard let data else { throw .notFound("Subscription not found") }
        return resources.ok("Subscription retrieved successfully", data: data)
    }

    /// `customer` and `plan` filter by numeric id, as documented.
    func listSubscriptions(_ request: SandboxRequest) -> SandboxResponse {
        let (items, window): ([JSONValue], PageWindow) = store.read { state in
            var subs = state.psSubscriptions.values.sorted { $0.id > $1.id }
            if let customer = request.queryValue("customer") { subs = subs.filter { String($0.customerID) == customer } }
            if let plan = request.queryValue("plan") { subs = subs.filter { String($0.planID) == plan } }
            let page = self.window(request, total: subs.count)
            return (page.slice(subs).map { resources.subscription($0, state: state) }, page)
        }
        return resources.ok("Subscriptions retrieved", data: .array(items), meta: resources.listMeta(window))
    }

    /// `{code, token}`; an unknown code or a token that is not the subscription's
    /// `email_token` answers 404 "Subscription with code not found or already inactive"
    /// (message as commonly reported; the exact status for a wrong token is unverified).
    func toggle(_ request: SandboxRequest, enable: Bool) throws(SandboxError) -> HandlerResult {
        guard let body = jsonBody(request) else { throw .invalid("Invalid JSON body") }
        guard let code = body["code"]?.stringValue, !code.isEmpty else { throw .invalid("Subscription code is required") }
        guard let token = body["token"]?.stringValue, !token.isEmpty else { throw .invalid("Email token is required") }
        let lifecycle = lifecycle
        let events = try store.withState { (state) throws(SandboxError) -> [OutgoingWebhook] in
            guard let s = state.psSubscriptions.values.first(where: { $0.code == code }), s.emailToken == token else {
                throw .notFound("Subscription with code not found or already inactive")
            }
            if enable {
                return try lifecycle.apply(.resume, subscriptionCode: code, state: &state)
            }
            return try lifecycle.apply(.cancel, subscriptionCode: code, state: &state)
        }
        return HandlerResult(resources.ok(enable ? "Subscription enabled successfully" : "Subscription disabled successfully"), events: events)
    }

    func manageLink(_ code: String) throws(SandboxError) -> SandboxResponse {
        guard let s = store.read({ $0.psSubscriptions.values.first { $0.code == code } }) else { throw .notFound("Subscription not found") }
        let link = "\(context.publicBase)/manage/paystack/\(s.code)?subscription_token=\(context.urlSignature("manage\(s.code)"))"
        return resources.ok("Link generated", data: ["link": .string(link)])
    }

    func getCustomer(_ key: String) throws(SandboxError) -> SandboxResponse {
        let data: JSONValue? = store.read { state in
            state.psCustomers.values.first { $0.code == key || $0.email.lowercased() == key.lowercased() }.map {
                resources.customerDetail($0, state: state)
            }
        }
        guard let data else { throw .notFound("Customer not found") }
        return resources.ok("Customer retrieved", data: data)
    }
}
