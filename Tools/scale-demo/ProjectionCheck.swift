import Postgres

/// Compares PostgreSQL with what was sent.
struct ProjectionCheck: Sendable {
    struct Result: Sendable {
        /// One line per check: whether it passed and what was found.
        var lines: [(passed: Bool, text: String)] = []
        /// Webhooks sent but not in `billing_events`.
        var missing = 0
        /// Their dedup keys.
        var missingKeys = Set<String>()
        /// Webhook ids stored more than once (in `billing_events`, or as extra `payments` rows).
        var duplicated = 0
        /// Subscriptions absent or not in the state of their last event.
        var notFinal = 0
        var passed: Bool { lines.allSatisfy(\.passed) }
        mutating func check(_ passed: Bool, _ text: String) { lines.append((passed, text)) }
    }

    let pool: PostgresPool
    let plan: WebhookPlan

    /// How many of this run's webhooks `billing_events` holds (for the drain wait).
    func appliedCount() async throws -> Int {
        let rows = try await pool.query("SELECT count(*)::bigint FROM billing_events WHERE dedup_key LIKE \(plan.dedupKeyPattern)")
        return Int(try rows.first?.decode(column: 0, as: Int64.self) ?? 0)
    }

    func run() async throws -> Result {
        var result = Result()
        let sentKeys = Set(plan.webhooks.map { WebhookPlan.dedupKey(webhookID: $0.webhookID) })

        // Every sent webhook exactly once in the event log, nothing else.
        let eventRows = try await pool.query(
            """
            SELECT dedup_key, count(*)::bigint FROM billing_events WHERE dedup_key LIKE \(plan.dedupKeyPattern) GROUP BY dedup_key
            """)
        var found = Set<String>()
        var repeated = 0
        for row in eventRows {
            let (key, count) = try row.decode((String, Int64).self)
            found.insert(key)
            if count > 1 { repeated += 1 }
        }
        let missing = sentKeys.subtracting(found), unexpected = found.subtracting(sentKeys)
        result.check(
            missing.isEmpty,
            "billing_events: \(found.count) of \(sentKeys.count) webhook ids present, \(missing.count) missing"
                + (missing.isEmpty ? "" : " (e.g. \(missing.sorted().prefix(3).joined(separator: ", ")))"))
        result.check(
            repeated == 0 && unexpected.isEmpty,
            "billing_events: \(repeated) webhook ids stored more than once, \(unexpected.count) rows not sent by this run")

        // Each payment applied once: one payments row per invoice sent.
        let paymentRows = try await pool.query(
            """
            SELECT count(*)::bigint, count(DISTINCT payment_id)::bigint FROM payments
            WHERE provider = 'lemonsqueezy' AND subscription_id LIKE \(plan.subscriptionIDPattern)
            """)
        let (payments, distinctPayments) = try paymentRows.first?.decode((Int64, Int64).self) ?? (Int64(0), Int64(0))
        result.check(
            payments == Int64(plan.paymentCount) && distinctPayments == payments,
            "payments: \(payments) rows (\(distinctPayments) distinct) for \(plan.paymentCount) payment webhooks")

        // Every subscription in its final state.
        let subscriptionRows = try await pool.query(
            """
            SELECT subscription_id, status, coalesce(app_user_id, ''), last_event_key FROM subscriptions
            WHERE provider = 'lemonsqueezy' AND subscription_id LIKE \(plan.subscriptionIDPattern)
            """)
        var stored: [String: (status: String, user: String, last: String)] = [:]
        for row in subscriptionRows {
            let (id, status, user, last) = try row.decode((String, String, String, String).self)
            stored[id] = (status, user, last)
        }
        var absent = 0, wrongStatus = 0, wrongUser = 0, notLatest = 0
        var examples: [String] = []
        var finalStatuses: [String: Int] = [:]
        for expected in plan.expected {
            finalStatuses[expected.status, default: 0] += 1
            guard let row = stored[expected.subscriptionID] else {
                absent += 1
                continue
            }
            if row.status != expected.status {
                wrongStatus += 1
                if examples.count < 3 { examples.append("\(expected.subscriptionID): \(row.status), expected \(expected.status)") }
            }
            if row.user != expected.appUserID { wrongUser += 1 }
            if row.last != expected.lastEventKey { notLatest += 1 }
        }
        result.missing = missing.count
        result.missingKeys = missing
        result.duplicated = repeated + max(0, Int(payments - distinctPayments))
        result.notFinal =
            absent
            + plan.expected.filter { expected in
                stored[expected.subscriptionID].map { $0.status != expected.status || $0.last != expected.lastEventKey } ?? false
            }.count
        let mix = finalStatuses.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        result.check(
            absent == 0 && stored.count == plan.expected.count,
            "subscriptions: \(stored.count) rows for \(plan.expected.count) subscriptions, \(absent) missing")
        result.check(
            wrongStatus == 0,
            "subscriptions: \(plan.expected.count - absent - wrongStatus) in their final status (\(mix)), \(wrongStatus) wrong"
                + (examples.isEmpty ? "" : " (e.g. \(examples.joined(separator: "; ")))"))
        result.check(wrongUser == 0, "subscriptions: \(wrongUser) with the wrong app_user_id")
        result.check(notLatest == 0, "subscriptions: \(notLatest) whose last applied event is not the last one sent")
        return result
    }
}
