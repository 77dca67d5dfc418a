/// `GET /plan` and `GET /plan/{id_or_code}`.
extension PaystackAPI {
    func listPlans(_ request: SandboxRequest) -> SandboxResponse {
        var plans = resources.catalog.plans.sorted { $0.id > $1.id }
        if let interval = request.queryValue("interval") { plans = plans.filter { $0.interval == interval } }
        if let amount = request.queryValue("amount").flatMap({ Int($0) }) { plans = plans.filter { $0.amount == amount } }
        let window = window(request, total: plans.count)
        let data: [JSONValue] = store.read { state in
            window.slice(plans).map { plan in
                resources.plan(
                    plan,
                    subscriptions: state.psSubscriptions.values.filter { $0.planID == plan.id }.sorted { $0.id < $1.id }.map {
                        resources.subscriptionInPlan($0, state: state)
                    })
            }
        }
        return resources.ok("Plans retrieved", data: .array(data), meta: resources.listMeta(window))
    }

    func getPlan(_ key: String) throws(SandboxError) -> SandboxResponse {
        guard let plan = resources.catalog.plan(idOrCode: key) else { throw .notFound("Plan not found") }
        let data = store.read { state in
            resources.plan(
                plan,
                subscriptions: state.psSubscriptions.values.filter { $0.planID == plan.id }.sorted { $0.id < $1.id }.map {
                    resources.subscriptionInPlan($0, state: state)
                })
        }
        return resources.ok("Plan retrieved", data: data)
    }
}
