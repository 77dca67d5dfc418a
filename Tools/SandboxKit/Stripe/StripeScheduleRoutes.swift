import Foundation

/// Subscription schedules, as far as a plan change at period end uses them:
/// `POST /v1/subscription_schedules` with `from_subscription`, `POST
/// /v1/subscription_schedules/{id}` with two `phases` and `end_behavior`,
/// `GET` one, and `POST …/{id}/release`. The next phase takes over when the
/// sandbox renews the subscription at the end of its period.
extension StripeAPI {
    func createSchedule(_ params: JSONValue) -> SandboxResponse {
        guard let subscriptionID = params["from_subscription"]?.stringValue else { return StripeErrors.missingParameter("from_subscription") }
        let now = context.clock.now()
        do throws(SandboxError) {
            let schedule = try store.withState { (state) throws(SandboxError) -> STSchedule in
                guard var s = state.stripe.subscriptions[subscriptionID] else { throw .notFound("No such subscription: '\(subscriptionID)'") }
                guard s.status != "canceled", s.status != "incomplete_expired" else { throw .invalid("The subscription has ended.") }
                guard s.scheduleID == nil else {
                    throw .invalid("You cannot migrate a subscription that is already attached to a schedule: `\(s.scheduleID ?? "")`.")
                }
                let id = state.stripe.id("sub_sched_", .schedule)
                let schedule = STSchedule(
                    id: id, subscriptionID: s.id, customerID: s.customerID,
                    phases: [STSchedule.Phase(priceID: s.priceID, start: s.periodStart, end: s.periodEnd)], createdAt: now)
                s.scheduleID = id
                state.stripe.subscriptions[s.id] = s
                state.stripe.schedules[id] = schedule
                return schedule
            }
            return .json(200, resources.schedule(schedule))
        } catch {
            return StripeErrors.from(error)
        }
    }

    /// `phases[i][items][0][price]`, `phases[i][start_date]`, `phases[i][end_date]`, `end_behavior` (`release` only).
    func updateSchedule(_ id: String, _ params: JSONValue) -> SandboxResponse {
        if let behaviour = params["end_behavior"]?.stringValue, behaviour != "release" {
            return StripeErrors.invalid("The sandbox's schedules end with end_behavior=release only.", param: "end_behavior")
        }
        guard let given = params["phases"]?.arrayValue, !given.isEmpty else { return StripeErrors.missingParameter("phases") }
        var phases: [STSchedule.Phase] = []
        for (index, phase) in given.enumerated() {
            guard let items = phase["items"]?.arrayValue, items.count == 1, let price = items[0]["price"]?.stringValue else {
                return StripeErrors.missingParameter("phases[\(index)][items][0][price]")
            }
            guard resources.catalog.price(price)?.isRecurring == true else {
                return StripeErrors.missing("price", price, param: "phases[\(index)][items][0][price]")
            }
            let start = phase["start_date"]?.stringValue.flatMap(TimeInterval.init).map(Date.init(timeIntervalSince1970:)) ?? phases.last?.end
            let end = phase["end_date"]?.stringValue.flatMap(TimeInterval.init).map(Date.init(timeIntervalSince1970:))
            guard let start else { return StripeErrors.missingParameter("phases[\(index)][start_date]") }
            if let end, end <= start { return StripeErrors.invalid("A phase must end after it starts.", param: "phases[\(index)][end_date]") }
            phases.append(STSchedule.Phase(priceID: price, start: start, end: end))
        }
        do throws(SandboxError) {
            let schedule = try store.withState { (state) throws(SandboxError) -> STSchedule in
                guard var schedule = state.stripe.schedules[id] else { throw .notFound("No such subscription_schedule: '\(id)'") }
                guard schedule.status == "active" else { throw .invalid("The schedule is \(schedule.status) and can no longer change.") }
                schedule.phases = phases
                state.stripe.schedules[id] = schedule
                return schedule
            }
            return .json(200, resources.schedule(schedule))
        } catch {
            return StripeErrors.from(error)
        }
    }

    /// Detaches the schedule; the subscription goes on as it is.
    func releaseSchedule(_ id: String) -> SandboxResponse {
        do throws(SandboxError) {
            let schedule = try store.withState { (state) throws(SandboxError) -> STSchedule in
                guard var schedule = state.stripe.schedules[id] else { throw .notFound("No such subscription_schedule: '\(id)'") }
                guard schedule.status == "active" else { throw .invalid("The schedule is \(schedule.status).") }
                schedule.status = "released"
                state.stripe.schedules[id] = schedule
                state.stripe.subscriptions[schedule.subscriptionID]?.scheduleID = nil
                return schedule
            }
            return .json(200, resources.schedule(schedule))
        } catch {
            return StripeErrors.from(error)
        }
    }
}
