import Foundation
import Kafka
import BillingModel
import Postgres
import ProjectionStore
import Entitlements
import ProjectorService
import Testing
import Webhooks

/// Money back and one charge per subscription, through the projector's real
/// write path and PostgreSQL, with Paystack's documented payload shapes.
@Suite struct MoneyBackTests {
    static let t0 = OwnershipTests.t0
    static let resolver = EntitlementResolver(policy: AccessPolicy(testDeployment: true))
    static let customer = "CUS_shared1", email = "b@example.com", plan = "PLN_premium1"

    /// `refund.processed` as Paystack documents it: the amount is a string, no timestamps.
    static func refund(reference: String, amount: Int64?) -> [UInt8] {
        let amount = amount.map { #""amount":"\#($0)","# } ?? ""
        return Array(
            """
            {"event":"refund.processed","data":{"status":"processed","transaction_reference":"\(reference)","refund_reference":"rf-\(reference)",
            \(amount)"currency":"NGN","processor":"mastercard","customer":{"first_name":"B","last_name":"B","email":"\(email)"},
            "integration":412829,"domain":"test"}}
            """.utf8)
    }

    /// `charge.dispute.*` in the documented shape, for the charge `reference`.
    static func dispute(_ event: String, reference: String, resolution: String?, at offset: TimeInterval) -> [UInt8] {
        let status = event == "charge.dispute.resolve" ? "resolved" : "awaiting-merchant-feedback"
        let resolution = resolution.map { #""\#($0)""# } ?? "null"
        return Array(
            """
            {"event":"\(event)","data":{"id":358950,"refund_amount":500000,"currency":"NGN","status":"\(status)","resolution":\(resolution),
            "domain":"test","transaction":{"id":1001,"reference":"\(reference)","amount":500000,"currency":"NGN","status":"success",
            "metadata":"","plan":{"plan_code":"\(plan)"}},"category":"chargeback",
            "customer":{"id":5406463,"email":"\(email)","customer_code":"\(customer)"},"bin":"123456","last4":"4081",
            "created_at":"\(Timestamp.format(t0.addingTimeInterval(offset - 60)))","updated_at":"\(Timestamp.format(t0.addingTimeInterval(offset)))"}}
            """.utf8)
    }

    /// `invoice.update` naming the subscription and the charge that paid it.
    static func invoice(subscription: String, reference: String) -> [UInt8] {
        Array(
            """
            {"event":"invoice.update","data":{"domain":"test","invoice_code":"INV_\(reference)","amount":500000,"status":"success","paid":true,
            "subscription":{"status":"active","subscription_code":"\(subscription)","email_token":"tok-\(subscription)",
            "next_payment_date":"\(Timestamp.format(t0.addingTimeInterval(60 * 86_400)))"},
            "customer":{"customer_code":"\(customer)","email":"\(email)"},"transaction":{"reference":"\(reference)","status":"success","amount":500000,"currency":"NGN"},
            "created_at":"\(Timestamp.format(t0.addingTimeInterval(30 * 86_400)))"}}
            """.utf8)
    }

    static func apply(_ projector: Projector, _ body: [UInt8], receivedAt offset: TimeInterval) async throws -> ProjectorBatchOutcome {
        try await projector.apply([try OwnershipTests.record(.paystack, body, receivedAt: offset)])
    }

    static func entitlement(_ pool: PostgresPool, _ user: String, at offset: TimeInterval) async throws -> EntitlementInfo? {
        let reader = SubscriptionStatusReader(pool: pool, resolver: resolver)
        let snapshot = try await reader.snapshot(for: ProjectionUser(appUserID: user, verifiedEmail: nil), at: t0.addingTimeInterval(offset))
        return snapshot.entitlements.first
    }

    static func subscription(_ pool: PostgresPool, _ code: String) async throws -> (status: String, latest: Date?) {
        let rows = try await pool.query("SELECT status, latest_purchase_at FROM subscriptions WHERE subscription_id = \(code)")
        let row = try #require(rows.first)
        let (status, latest) = try row.decode((String, Date?).self)
        return (status, latest)
    }

    @Test(arguments: [false, true])
    func aRefundOfASubscriptionChargeEndsItsAccess(refundFirst: Bool) async throws {
        try await Support.withDatabase { pool in
            let projector = Support.projector(pool)
            for record in try OwnershipTests.paystackTakeover().prefix(2) { _ = try await projector.apply([record]) }
            let refund = Self.refund(reference: "ref-1001", amount: nil)
            if refundFirst {
                // Before its charge is logged (a reordered or lost charge): kept, reported, applied later.
                let sink = RecordingSink()
                let fresh = Support.projector(pool, sink: sink)
                _ = try await Self.apply(fresh, Self.refund(reference: "ref-9999", amount: nil), receivedAt: 50)
                #expect(sink.received.map(\.reason).contains { $0.hasPrefix("unlinked money back") })
            }
            #expect(try await Self.entitlement(pool, "user-b", at: 3600)?.isActive == true)
            _ = try await Self.apply(projector, refund, receivedAt: 7200)
            let after = try #require(try await Self.entitlement(pool, "user-b", at: 7300))
            #expect(!after.isActive, "the money went back")
            #expect(after.refundedAt == Self.t0.addingTimeInterval(7200))
        }
    }

    @Test func aPartialRefundKeepsAccessByDefault() async throws {
        try await Support.withDatabase { pool in
            let projector = Support.projector(pool)
            for record in try OwnershipTests.paystackTakeover().prefix(2) { _ = try await projector.apply([record]) }
            _ = try await Self.apply(projector, Self.refund(reference: "ref-1001", amount: 100_000), receivedAt: 7200)
            let info = try #require(try await Self.entitlement(pool, "user-b", at: 7300))
            #expect(info.isActive)
            let strict = EntitlementResolver(policy: AccessPolicy(partialRefund: .revoke, testDeployment: true))
            let snapshot = try await SubscriptionStatusReader(pool: pool, resolver: strict)
                .snapshot(for: ProjectionUser(appUserID: "user-b", verifiedEmail: nil), at: Self.t0.addingTimeInterval(7300))
            #expect(snapshot.entitlements.first?.isActive == false)
        }
    }

    @Test(arguments: [("merchant-accepted", false), ("declined", true)])
    func aDisputeFlagsThenRevokesOrRestores(resolution: String, active: Bool) async throws {
        try await Support.withDatabase { pool in
            let projector = Support.projector(pool)
            for record in try OwnershipTests.paystackTakeover().prefix(2) { _ = try await projector.apply([record]) }
            _ = try await Self.apply(
                projector, Self.dispute("charge.dispute.create", reference: "ref-1001", resolution: nil, at: 3600), receivedAt: 3601)
            let open = try #require(try await Self.entitlement(pool, "user-b", at: 3700))
            #expect(open.isActive && open.disputeDetectedAt == Self.t0.addingTimeInterval(3600))
            _ = try await Self.apply(
                projector, Self.dispute("charge.dispute.resolve", reference: "ref-1001", resolution: resolution, at: 7200), receivedAt: 7201)
            let closed = try #require(try await Self.entitlement(pool, "user-b", at: 7300))
            #expect(closed.isActive == active)
            #expect(closed.disputeDetectedAt == nil)
        }
    }

    @Test func aOneTimeOrderIsRefundedInPartOrInFullAndChargedBack() async throws {
        try await Support.withDatabase { pool in
            let projector = Support.projector(pool)
            func order(_ id: Int) -> [UInt8] {
                Array(
                    """
                    {"event":"charge.success","data":{"id":\(id),"domain":"test","status":"success","reference":"ord-\(id)","amount":500000,
                    "currency":"NGN","paid_at":"\(Timestamp.format(Self.t0))","metadata":null,
                    "customer":{"customer_code":"CUS_o1","email":"o@example.com"},"authorization":{"authorization_code":"AUTH_o1"}}}
                    """.utf8)
            }
            // A refund of order 4 arrives before the order itself.
            _ = try await Self.apply(projector, Self.refund(reference: "ord-4", amount: 200_000), receivedAt: 0)
            for id in [1, 2, 3, 4] { _ = try await Self.apply(projector, order(id), receivedAt: 1) }
            _ = try await Self.apply(projector, Self.refund(reference: "ord-1", amount: 100_000), receivedAt: 10)
            _ = try await Self.apply(projector, Self.refund(reference: "ord-2", amount: 500_000), receivedAt: 10)
            _ = try await Self.apply(
                projector, Self.dispute("charge.dispute.resolve", reference: "ord-3", resolution: "merchant-accepted", at: 20), receivedAt: 21)
            _ = try await Self.apply(projector, Self.refund(reference: "ord-4", amount: 300_000), receivedAt: 30)
            // A redelivery changes nothing (the two refunds of order 4 are still 500,000, not 800,000).
            _ = try await Self.apply(projector, Self.refund(reference: "ord-4", amount: 300_000), receivedAt: 30)
            let rows = try await pool.query(
                "SELECT order_id, status, partially_refunded_at IS NOT NULL, refunded_amount FROM orders ORDER BY order_id")
            let decoded = try rows.map { try $0.decode((String, String, Bool, Int64?).self) }
            #expect(decoded.map(\.0) == ["1", "2", "3", "4"])
            #expect(decoded.map(\.1) == ["paid", "refunded", "refunded", "refunded"])
            #expect(decoded.map(\.2) == [true, false, false, false])
            #expect(decoded.map(\.3) == [100_000, 500_000, 500_000, 500_000])
        }
    }

    /// Two app users on one Paystack customer, each with a subscription to
    /// the same plan: B's renewal is B's alone, whatever A's state.
    @Test func aRenewalOfOneUserNeverFoldsIntoAnotherUsersSubscription() async throws {
        try await Support.withDatabase { pool in
            let projector = Support.projector(pool)
            for record in try OwnershipTests.paystackTakeover() { _ = try await projector.apply([record]) }
            // A's card fails: attention.
            let failed = Array(
                """
                {"event":"invoice.payment_failed","data":{"domain":"test","invoice_code":"INV_a1","amount":500000,"status":"failed","paid":false,
                "subscription":{"status":"attention","subscription_code":"SUB_a","email_token":"tok-SUB_a"},
                "customer":{"customer_code":"\(Self.customer)","email":"\(Self.email)"},"transaction":{},
                "created_at":"\(Timestamp.format(Self.t0.addingTimeInterval(30 * 86_400)))"}}
                """.utf8)
            _ = try await Self.apply(projector, failed, receivedAt: 30 * 86_400)
            let before = try await Self.subscription(pool, "SUB_b")
            // B's renewal: a charge with B's card, no subscription code; then its invoice.
            let renewal = OwnershipTests.paystackCharge(
                user: nil, customer: Self.customer, email: Self.email, plan: Self.plan, authorization: "AUTH_b1", id: 1003, at: 30 * 86_400 + 60)
            _ = try await Self.apply(projector, renewal, receivedAt: 30 * 86_400 + 61)
            let a = try await Self.subscription(pool, "SUB_a")
            let b = try await Self.subscription(pool, "SUB_b")
            #expect(a.status == "attention", "B's renewal must not clear A's failed payment")
            #expect(b.status == "active")
            #expect(b.latest == Self.t0.addingTimeInterval(30 * 86_400 + 60))
            #expect(before.latest != b.latest)
            _ = try await Self.apply(projector, Self.invoice(subscription: "SUB_b", reference: "ref-1003"), receivedAt: 30 * 86_400 + 62)
            #expect(try await Self.subscription(pool, "SUB_a").status == "attention")
            // A refund of B's renewal is B's business only.
            _ = try await Self.apply(projector, Self.refund(reference: "ref-1003", amount: nil), receivedAt: 31 * 86_400)
            #expect(try await Self.entitlement(pool, "user-b", at: 31 * 86_400 + 60)?.isActive == false)
            let aRow = try await pool.query("SELECT refunded_at FROM subscriptions WHERE subscription_id = 'SUB_a'")
            let aRefunded = try #require(aRow.first).decode(Date?.self)
            #expect(aRefunded == nil)
        }
    }

    /// Two projectors, each with its own connection, apply cancel/resume
    /// commands and renewal webhooks of the same subscription at once:
    /// every event ends up folded (no lost update), and the rows equal what
    /// one projector applying the same records one by one leaves.
    @Test func twoProjectorsRacingCommandsAndWebhooksLoseNothing() async throws {
        var commands: [KafkaConsumerRecord] = [], charges: [KafkaConsumerRecord] = []
        for round in 0..<10 {
            let at = Self.t0.addingTimeInterval(TimeInterval(3600 + round * 60))
            var command = SubscriptionCommand(
                commandID: "cancel-\(round)", kind: round.isMultiple(of: 2) ? .cancelRequested : .resumeRequested, provider: .paystack,
                subscriptionID: "SUB_b", appUserID: "user-b", requestedAt: at)
            command.observed = ObservedSubscription(
                status: round.isMultiple(of: 2) ? "non-renewing" : "active", renewsAt: nil, endsAt: nil, cancelled: round.isMultiple(of: 2),
                emailToken: "tok-SUB_b", observedAt: at)
            commands.append(Support.record(Topics.commands, key: command.key, value: try RecordCoding.encode(command)))
            charges.append(
                try OwnershipTests.record(
                    .paystack,
                    OwnershipTests.paystackCharge(
                        user: nil, customer: Self.customer, email: Self.email, plan: Self.plan, authorization: "AUTH_b1", id: 5000 + round,
                        at: TimeInterval(3600 + round * 60 + 30)),
                    receivedAt: TimeInterval(3600 + round * 60 + 30)))
        }
        let setup = try OwnershipTests.paystackTakeover()
        let commandRecords = commands, chargeRecords = charges
        let raced = try await Support.withDatabase { pool in
            let first = Support.projector(pool), second = Support.projector(pool)
            for record in setup { _ = try await first.apply([record]) }
            for round in 0..<10 {
                async let one = first.apply([commandRecords[round]])
                async let two = second.apply([chargeRecords[round]])
                _ = try await (one, two)
            }
            let rows = try await pool.query("SELECT status, latest_purchase_at FROM subscriptions WHERE subscription_id = 'SUB_b'")
            let (status, latest) = try #require(rows.first).decode((String, Date?).self)
            #expect(status == "active", "the last command observed it active")
            #expect(latest == Self.t0.addingTimeInterval(3600 + 9 * 60 + 30), "the last renewal was folded")
            return try await Support.dump(pool)["subscriptions"]
        }
        let serial = try await Support.withDatabase { pool in
            let projector = Support.projector(pool)
            for record in setup + commandRecords + chargeRecords { _ = try await projector.apply([record]) }
            return try await Support.dump(pool)["subscriptions"]
        }
        #expect(raced == serial)
    }
}
