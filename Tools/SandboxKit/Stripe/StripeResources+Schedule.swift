import Foundation

extension StripeResources {
    /// A SubscriptionSchedule object: its phases with their one item each.
    func schedule(_ s: STSchedule) -> JSONValue {
        let phases: [JSONValue] = s.phases.map { phase in
            [
                "start_date": Self.ts(phase.start), "end_date": Self.ts(phase.end),
                "items": [["price": .string(phase.priceID), "quantity": 1]], "proration_behavior": "create_prorations",
            ]
        }
        let current = s.phases.first.map { phase -> JSONValue in ["start_date": Self.ts(phase.start), "end_date": Self.ts(phase.end)] } ?? .null
        return [
            "id": .string(s.id), "object": "subscription_schedule", "created": Self.ts(s.createdAt), "customer": .string(s.customerID),
            "current_phase": s.status == "active" ? current : .null, "end_behavior": "release", "livemode": false, "metadata": [:],
            "phases": .array(phases), "released_subscription": s.status == "released" ? .string(s.subscriptionID) : .null,
            "status": .string(s.status), "subscription": s.status == "active" ? .string(s.subscriptionID) : .null,
        ]
    }
}
