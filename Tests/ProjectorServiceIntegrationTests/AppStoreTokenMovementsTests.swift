import AppStoreReports
import BillingModel
import Foundation
import Postgres
import ProjectionStore
import Testing
import WebhookSenderService

/// The views the reports to Apple read (`app_store_tokens`,
/// `app_store_token_movements`, projection migrations 23 and 24) against
/// PostgreSQL: rows in, line items out, read as the reporter reads them
/// (``PostgresAppStoreReportStore``). Paystack's through the projector's real
/// write path, since its charges name no subscription and only the stored
/// shape says whether the card link finds them.
@Suite struct AppStoreTokenMovementsTests {
    static let t0 = OwnershipTests.t0
    static let day: TimeInterval = 86_400

    static func at(_ offset: TimeInterval) -> Date { t0.addingTimeInterval(offset) }

    /// A checkout opened from the App Store with token `token`.
    static func checkout(_ id: String, _ provider: Provider, token: String, pool: PostgresPool) async throws {
        try await pool.execute(
            """
            INSERT INTO checkouts (checkout_id, provider, app_user_id, email, variant_id, url, created_at, is_subscription,
                app_store_storefront, external_purchase_id, external_purchase_token_type)
            VALUES (\(id), \(provider.rawValue), 'user-p', 'p@example.com', 'v', 'https://pay.example.com', \(at(-60)), true,
                'NLD', \(token), 'ACQUISITION')
            """)
    }

    static func tokens(_ pool: PostgresPool) async throws -> [String: [PurchaseMovement]] {
        try await WebhookSenderSchema.migrate(pool: pool)
        let states = try await PostgresAppStoreReportStore(pool: pool).tokens()
        return Dictionary(uniqueKeysWithValues: states.map { ($0.token.externalPurchaseID, $0.movements) })
    }

    // MARK: - Paystack: charges linked by card

    @Test func aPaystackSubscriptionReportsItsPurchaseRenewalsAndRefund() async throws {
        try await Support.withDatabase { pool in
            let projector = Support.projector(pool)
            let customer = "CUS_tok1", email = "p@example.com", plan = "PLN_tok1", card = "AUTH_tok1"
            try await Self.checkout("chk-3001", .paystack, token: "TOKEN_P", pool: pool)
            let bodies: [([UInt8], TimeInterval)] = [
                (
                    OwnershipTests.paystackCharge(user: "user-p", customer: customer, email: email, plan: plan, authorization: card, id: 3001, at: 0),
                    1
                ),
                (
                    OwnershipTests.paystackSubscription(
                        "subscription.create", code: "SUB_tok1", customer: customer, email: email, plan: plan, authorization: card, status: "active"),
                    2
                ),
                // Renewals: charges of the saved card, with no metadata and no subscription code.
                (
                    OwnershipTests.paystackCharge(
                        user: nil, customer: customer, email: email, plan: plan, authorization: card, id: 3002, at: 30 * Self.day), 30 * Self.day + 1
                ),
                (
                    OwnershipTests.paystackCharge(
                        user: nil, customer: customer, email: email, plan: plan, authorization: card, id: 3003, at: 60 * Self.day), 60 * Self.day + 1
                ),
                // The second renewal refunded in part.
                (MoneyBackTests.refund(reference: "ref-3003", amount: 200_000), 61 * Self.day),
                // Another buyer's charge on another card: not this token's.
                (
                    OwnershipTests.paystackCharge(
                        user: nil, customer: customer, email: email, plan: plan, authorization: "AUTH_other", id: 3009, at: 5 * Self.day),
                    5 * Self.day + 1
                ),
            ]
            for (body, offset) in bodies { _ = try await MoneyBackTests.apply(projector, body, receivedAt: offset) }

            let movements = try await Self.tokens(pool)["TOKEN_P"]
            let start = "paystack:payment:3001"
            #expect(
                movements == [
                    PurchaseMovement(
                        key: start, kind: .subscriptionStart, at: Self.at(0), amount: 500_000, currency: "NGN", productID: plan,
                        periodStart: Self.at(0), periodEnd: Self.at(30 * Self.day)),
                    PurchaseMovement(
                        key: "paystack:payment:3002", kind: .renewal(start: start), at: Self.at(30 * Self.day), amount: 500_000, currency: "NGN",
                        productID: plan, periodStart: Self.at(30 * Self.day), periodEnd: Self.at(60 * Self.day)),
                    PurchaseMovement(
                        key: "paystack:payment:3003", kind: .renewal(start: start), at: Self.at(60 * Self.day), amount: 500_000, currency: "NGN",
                        productID: plan, periodStart: Self.at(60 * Self.day),
                        periodEnd: Calendar.utc.date(byAdding: .month, value: 1, to: Self.at(60 * Self.day))),
                    PurchaseMovement(
                        key: "paystack:payment:3003:refund", kind: .refund(of: "paystack:payment:3003"), at: Self.at(61 * Self.day),
                        amount: 200_000, currency: "NGN", productID: plan),
                ])
        }
    }

    /// Two subscriptions on one customer, plan and card: a charge could be
    /// either's, so neither takes it (the refund check's rule), and the token
    /// reports no line rather than another buyer's money.
    @Test func aChargeTwoSubscriptionsCouldOwnIsNeitherOnes() async throws {
        try await Support.withDatabase { pool in
            let projector = Support.projector(pool)
            let customer = "CUS_tok2", email = "p@example.com", plan = "PLN_tok2", card = "AUTH_tok2"
            try await Self.checkout("chk-4001", .paystack, token: "TOKEN_Q", pool: pool)
            _ = try await MoneyBackTests.apply(
                projector,
                OwnershipTests.paystackCharge(user: "user-p", customer: customer, email: email, plan: plan, authorization: card, id: 4001, at: 0),
                receivedAt: 1)
            for code in ["SUB_tok2a", "SUB_tok2b"] {
                _ = try await MoneyBackTests.apply(
                    projector,
                    OwnershipTests.paystackSubscription(
                        "subscription.create", code: code, customer: customer, email: email, plan: plan, authorization: card, status: "active"),
                    receivedAt: 2)
            }
            #expect(try await Self.tokens(pool)["TOKEN_Q"] == [])
        }
    }

    // MARK: - Providers whose payments name their subscription

    /// Rows as the projector stores a Lemon Squeezy or Stripe subscription:
    /// an event naming the checkout, and payments naming the subscription; a
    /// refunded payment is its latest state (charged and refunded at its refund).
    @Test(arguments: [Provider.lemonsqueezy, .stripe])
    func renewalsAndARefundedRenewalBecomeLines(_ provider: Provider) async throws {
        try await Support.withDatabase { pool in
            let p = provider.rawValue
            try await Self.checkout("chk-5001", provider, token: "TOKEN_L", pool: pool)
            try await pool.execute(
                """
                INSERT INTO billing_events (dedup_key, provider, event_name, kind, entity_key, subscription_id, received_at,
                    ordering_ts, source_partition, source_offset, event, payload, checkout_id)
                VALUES ('e1', \(p), 'created', 'subscriptionCreated', 'k', 'SUB_L', \(Self.at(0)), \(Self.at(0)), 0, 1, '{}'::jsonb, ''::bytea,
                    'chk-5001')
                """)
            try await pool.execute(
                """
                INSERT INTO subscriptions (provider, subscription_id, status, last_event_key, variant_id, renews_at)
                VALUES (\(p), 'SUB_L', 'active', 'e1', 'var-1', \(Self.at(90 * Self.day)))
                """)
            // pay-2's latest state is a fetch of its paid invoice (Stripe's reconciler), pay-5's an open one.
            let payments: [(String, String, String?, Int64, TimeInterval)] = [
                ("pay-1", "paymentSucceeded", nil, 999, 0),
                ("pay-2", "invoiceUpdated", "paid", 999, 30 * Self.day),
                ("pay-3", "paymentRefunded", nil, 999, 65 * Self.day),
                ("pay-4", "paymentFailed", nil, 999, 70 * Self.day),
                ("pay-5", "invoiceUpdated", "open", 999, 71 * Self.day),
            ]
            for (id, kind, status, amount, offset) in payments {
                try await pool.execute(
                    """
                    INSERT INTO payments (provider, payment_id, subscription_id, kind, status, amount, currency, occurred_at)
                    VALUES (\(p), \(id), 'SUB_L', \(kind), \(status), \(amount), 'USD', \(Self.at(offset)))
                    """)
            }

            let movements = try await Self.tokens(pool)["TOKEN_L"]
            let start = "\(p):payment:pay-1"
            #expect(
                movements == [
                    PurchaseMovement(
                        key: start, kind: .subscriptionStart, at: Self.at(0), amount: 999, currency: "USD", productID: "var-1",
                        periodStart: Self.at(0), periodEnd: Self.at(30 * Self.day)),
                    PurchaseMovement(
                        key: "\(p):payment:pay-2", kind: .renewal(start: start), at: Self.at(30 * Self.day), amount: 999, currency: "USD",
                        productID: "var-1", periodStart: Self.at(30 * Self.day), periodEnd: Self.at(65 * Self.day)),
                    PurchaseMovement(
                        key: "\(p):payment:pay-3", kind: .renewal(start: start), at: Self.at(65 * Self.day), amount: 999, currency: "USD",
                        productID: "var-1", periodStart: Self.at(65 * Self.day), periodEnd: Self.at(90 * Self.day)),
                    PurchaseMovement(
                        key: "\(p):payment:pay-3:refund", kind: .refund(of: "\(p):payment:pay-3"), at: Self.at(65 * Self.day), amount: 999,
                        currency: "USD", productID: "var-1"),
                ])
        }
    }
}

extension Calendar {
    fileprivate static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}
