import Foundation
import Webhooks

/// One webhook the demo will send.
struct PlannedWebhook: Sendable {
    /// Index of the subscription this event belongs to.
    let subscription: Int
    /// Position in that subscription's history (events are sent in this order).
    let sequence: Int
    let eventName: String
    /// `meta.webhook_id`: the receiver's dedup key is `lemonsqueezy:<webhookID>`.
    let webhookID: String
    /// The signed request body.
    let body: [UInt8]
}

/// What PostgreSQL must hold for one subscription once everything is applied.
struct ExpectedSubscription: Sendable {
    let subscriptionID: String
    let appUserID: String
    let status: String
    /// The dedup key of the newest event (the fold's `last_event_key`).
    let lastEventKey: String
}

/// 2,000 subscriptions × 10 events by default, each subscription's history
/// plausible for Lemon Squeezy: created, then payments and updates (some
/// passing through past_due), and for most a final cancellation, expiry, or
/// update. Identifiers carry a run id, so runs never collide and the checks
/// can select exactly this run's rows.
struct WebhookPlan: Sendable {
    let runID: String
    /// Events in sending order: round by round (every subscription's first
    /// event, then every second one...), so one subscription's events are
    /// thousands of requests apart and interleave across subscriptions.
    let webhooks: [PlannedWebhook]
    let expected: [ExpectedSubscription]
    /// `subscriptions.subscription_id LIKE` pattern matching this run's ids only.
    let subscriptionIDPattern: String
    /// `billing_events.dedup_key LIKE` pattern matching this run's webhooks only.
    let dedupKeyPattern: String
    /// How many `subscription_payment_success` events were planned (one `payments` row each).
    let paymentCount: Int

    static func dedupKey(webhookID: String) -> String { "lemonsqueezy:\(webhookID)" }

    /// Builds the plan.
    /// - Parameters:
    ///   - subscriptions: how many subscriptions.
    ///   - eventsPerSubscription: events per subscription (the first is always `subscription_created`).
    ///   - runID: 8 lowercase hex digits, unique per run.
    ///   - start: the provider timestamp of the first event; later ones are minutes apart.
    ///   - ownership: the stack's `OWNERSHIP_PROOF_KEY`: each subscription's custom data carries its proof.
    static func make(subscriptions: Int, eventsPerSubscription: Int, runID: String, start: Date, ownership: OwnershipProof) -> WebhookPlan {
        // Numeric ids, like Lemon Squeezy's: "9" + 4 digits of the run + 6 digits of the index.
        let runDigits = String(format: "%04d", (Int(runID.prefix(4), radix: 16) ?? 0) % 10_000)
        var byRound = [[PlannedWebhook]](repeating: [], count: eventsPerSubscription)
        var expected: [ExpectedSubscription] = []
        var payments = 0
        var counter = 0
        for index in 0..<subscriptions {
            let appUserID = "scale-\(runID)-user-\(index)", checkoutID = "scale-\(runID)-checkout-\(index)"
            let subscription = LemonSqueezySubscriptionFacts(
                id: "9\(runDigits)\(String(format: "%06d", index))",
                appUserID: appUserID, checkoutID: checkoutID,
                ownershipProof: ownership.proof(checkoutID: checkoutID, appUserID: appUserID),
                customerID: 70_000_000 + index,
                email: "scale-\(runID)-\(index)@example.com",
                createdAt: start.addingTimeInterval(Double(index)))
            var status = "active"
            var lastKey = ""
            for sequence in 0..<eventsPerSubscription {
                counter += 1
                let webhookID = "\(runID)-0000-4000-8000-\(String(format: "%012x", counter))"
                // Strictly increasing per subscription: the projector orders by it.
                let updatedAt = subscription.createdAt.addingTimeInterval(Double(sequence) * 600)
                let step = Self.step(sequence: sequence, of: eventsPerSubscription, subscription: index)
                if step.eventName == "subscription_payment_success" { payments += 1 } else { status = step.status }
                let body = LemonSqueezyWebhookBody.make(
                    eventName: step.eventName, webhookID: webhookID, subscription: subscription, status: step.status,
                    invoiceID: subscription.customerID * 100 + sequence, updatedAt: updatedAt)
                byRound[sequence].append(
                    PlannedWebhook(
                        subscription: index, sequence: sequence, eventName: step.eventName, webhookID: webhookID, body: body))
                lastKey = dedupKey(webhookID: webhookID)
            }
            expected.append(
                ExpectedSubscription(
                    subscriptionID: subscription.id, appUserID: subscription.appUserID, status: status, lastEventKey: lastKey))
        }
        return WebhookPlan(
            runID: runID, webhooks: byRound.flatMap { $0 }, expected: expected,
            subscriptionIDPattern: "9\(runDigits)______", dedupKeyPattern: "lemonsqueezy:\(runID)-%", paymentCount: payments)
    }

    /// The event at `sequence`: created first; in between, payments and
    /// updates alternate (every seventh subscription goes past_due for a
    /// while); the last event decides the final state by subscription index:
    /// cancelled, expired, past_due or still active.
    static func step(sequence: Int, of count: Int, subscription: Int) -> (eventName: String, status: String) {
        if sequence == 0 { return ("subscription_created", "active") }
        if sequence == count - 1 {
            switch subscription % 4 {
            case 0: return ("subscription_cancelled", "cancelled")
            case 1: return ("subscription_expired", "expired")
            case 2: return ("subscription_updated", "past_due")
            default: return ("subscription_updated", "active")
            }
        }
        if sequence % 2 == 1 { return ("subscription_payment_success", "paid") }
        let pastDue = subscription % 7 == 3 && sequence == 2
        return ("subscription_updated", pastDue ? "past_due" : "active")
    }
}
