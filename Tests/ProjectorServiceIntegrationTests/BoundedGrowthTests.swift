import Foundation
import Kafka
import BillingModel
import Postgres
import ProjectorService
import TestSupport
import Testing

/// A week of hourly reconciler sweeps over a few thousand Paystack
/// transactions, through the projector's real write path: the log does not
/// grow when nothing changed, and what a long-lived subscription's fold
/// reads stays the same, while a real change (and a return to the earlier
/// state) still reaches the row.
@Suite struct BoundedGrowthTests {
    static let t0 = OwnershipTests.t0
    static let subscriptions = 20
    static let renewalsPerSubscription = 25
    static let oneTimeCharges = 700
    static let abandoned = 300
    static let failed = 100
    static let sweeps = 168

    /// One Paystack transaction, as `GET /transaction/verify/:reference` answers its `data`.
    struct Transaction {
        var reference: String
        var customer: String
        var data: String
    }

    static func transactions() -> [Transaction] {
        var result: [Transaction] = []
        func charge(
            id: Int, status: String, customer: String, plan: String?, authorization: String, paidAt: TimeInterval?, user: String?
        )
            -> Transaction
        {
            let metadata = user.map { TestOwnership.customDataJSON(appUserID: $0, checkoutID: "chk-\(id)") } ?? "null"
            let paid = paidAt.map { "\"\(Timestamp.format(t0.addingTimeInterval($0)))\"" } ?? "null"
            let planJSON = plan.map { #"{"plan_code":"\#($0)","name":"Premium Monthly","interval":"monthly"}"# } ?? "null"
            let data = """
                {"id":\(id),"domain":"test","status":"\(status)","reference":"ref-\(id)","amount":500000,"currency":"NGN",\
                "paid_at":\(paid),"created_at":"\(Timestamp.format(t0.addingTimeInterval(Double(id % 1000))))","metadata":\(metadata),\
                "customer":{"customer_code":"\(customer)","email":"\(customer.lowercased())@example.com"},\
                "authorization":{"authorization_code":"\(authorization)","last4":"4081","brand":"visa","reusable":true},"plan":\(planJSON)}
                """
            return Transaction(reference: "ref-\(id)", customer: customer, data: data)
        }
        var id = 10_000
        for s in 0..<subscriptions {
            for r in 0..<renewalsPerSubscription {
                id += 1
                // Monthly renewals, going back years: a long-lived subscription.
                let paidAt = -Double(renewalsPerSubscription - r) * 30 * 86_400
                result.append(
                    charge(
                        id: id, status: "success", customer: "CUS_long\(s)", plan: "PLN_week", authorization: "AUTH_long\(s)",
                        paidAt: paidAt, user: r == 0 ? "user-long\(s)" : nil))
            }
        }
        for n in 0..<oneTimeCharges {
            id += 1
            result.append(
                charge(
                    id: id, status: "success", customer: "CUS_once\(n % 300)", plan: nil, authorization: "AUTH_once\(n)",
                    paidAt: -Double(n) * 600, user: "user-once\(n % 300)"))
        }
        for n in 0..<(abandoned + failed) {
            id += 1
            result.append(
                charge(
                    id: id, status: n < abandoned ? "abandoned" : "failed", customer: "CUS_gone\(n % 200)", plan: nil,
                    authorization: "AUTH_gone\(n)", paidAt: nil, user: nil))
        }
        return result
    }

    static func subscriptionData(_ s: Int, status: String) -> String {
        """
        {"domain":"test","status":"\(status)","subscription_code":"SUB_long\(s)","email_token":"tok-\(s)","amount":500000,\
        "next_payment_date":"\(Timestamp.format(t0.addingTimeInterval(30 * 86_400)))",\
        "createdAt":"\(Timestamp.format(t0.addingTimeInterval(-Double(renewalsPerSubscription) * 30 * 86_400)))",\
        "plan":{"plan_code":"PLN_week","name":"Premium Monthly"},\
        "customer":{"customer_code":"CUS_long\(s)","email":"cus_long\(s)@example.com"},\
        "authorization":{"authorization_code":"AUTH_long\(s)","last4":"4081","brand":"visa"}}
        """
    }

    /// Subscription 0 goes non-renewing for sweeps 100–119, then back to
    /// active: the same content as before, which must be logged again.
    static func status(of s: Int, sweep: Int) -> String {
        s == 0 && (100..<120).contains(sweep) ? "non-renewing" : "active"
    }

    /// Rows the fold of `SUB_long<s>` reads: its own events and the charges
    /// linked to it by customer, plan and card (``ProjectionWriter/refold``).
    static func foldRows(_ pool: PostgresPool, _ s: Int) async throws -> Int {
        try await Support.count(
            pool,
            """
            SELECT count(*) FROM billing_events WHERE provider = 'paystack'
                AND (subscription_id = \("SUB_long\(s)") OR (subscription_id IS NULL AND customer_id = \("CUS_long\(s)")
                    AND plan_code = 'PLN_week' AND authorization_code = \("AUTH_long\(s)")))
            """)
    }

    @Test func aWeekOfHourlySweepsKeepsTheLogAndTheFoldFlat() async throws {
        try await Support.withDatabase { pool in
            let projector = Support.projector(pool)
            let transactions = Self.transactions()
            func sweep(_ k: Int) async throws {
                // Hourly, starting a day after t0 (SnapshotApplyTests.snapshot takes seconds after t0).
                let fetchedAt = 86_400 + Double(k) * 3600
                var records: [KafkaConsumerRecord] = []
                for t in transactions {
                    records.append(
                        try SnapshotApplyTests.snapshot(
                            .paystack, .transaction, id: t.reference, data: t.data, fetchedAt: fetchedAt, customer: t.customer))
                }
                for s in 0..<Self.subscriptions {
                    records.append(
                        try SnapshotApplyTests.snapshot(
                            .paystack, .subscription, id: "SUB_long\(s)", data: Self.subscriptionData(s, status: Self.status(of: s, sweep: k)),
                            fetchedAt: fetchedAt, customer: "CUS_long\(s)"))
                }
                for start in stride(from: 0, to: records.count, by: 1000) {
                    let outcome = try await projector.apply(Array(records[start..<min(start + 1000, records.count)]))
                    #expect(outcome.deadLettered == 0)
                }
            }
            let total: PostgresQuery = "SELECT count(*) FROM billing_events"

            try await sweep(1)
            let rowsAfterFirst = try await Support.count(pool, total)
            let foldRowsAfterFirst = try await Self.foldRows(pool, 1)
            #expect(rowsAfterFirst == transactions.count + Self.subscriptions, "one row per object at first sight")
            #expect(foldRowsAfterFirst == Self.renewalsPerSubscription + 1)
            #expect(try await SnapshotApplyTests.row(pool, "SUB_long1").status == "active")

            try await sweep(2)
            // Checked at once too, so a regression fails in seconds rather than after a week of growth.
            try #require(try await Support.count(pool, total) == rowsAfterFirst, "an unchanged sweep stored nothing")
            for k in 3...99 { try await sweep(k) }
            #expect(try await Support.count(pool, total) == rowsAfterFirst, "98 unchanged sweeps stored nothing")

            try await sweep(100)
            #expect(try await SnapshotApplyTests.row(pool, "SUB_long0").status == "non-renewing", "a real change is stored and folded")
            for k in 101...119 { try await sweep(k) }
            try await sweep(120)
            #expect(try await SnapshotApplyTests.row(pool, "SUB_long0").status == "active", "and so is the return to the earlier state")
            for k in 121...Self.sweeps { try await sweep(k) }

            // Flat: only the two real changes were added in 168 sweeps.
            #expect(try await Support.count(pool, total) == rowsAfterFirst + 2)
            #expect(try await Self.foldRows(pool, 1) == foldRowsAfterFirst)
            let grantNothing = try await Support.count(
                pool, "SELECT count(*) FROM billing_events WHERE event_name = 'storefront.snapshot.transaction' AND kind LIKE 'unknown%'")
            #expect(grantNothing == Self.abandoned + Self.failed, "an abandoned or failed transaction is logged once, not hourly")
        }
    }
}
