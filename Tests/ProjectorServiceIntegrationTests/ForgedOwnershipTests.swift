import ServiceSettings
import Foundation
import Kafka
import BillingModel
import Postgres
import ProjectorService
import Telemetry
import TestSupport
import Testing
import Webhooks

/// Custom data is a claim, not evidence: a Lemon Squeezy buy link takes
/// `checkout[custom][…]` from anyone. Through the projector's real write path,
/// a claim without a valid ownership proof gives no owner, completes nobody's
/// checkout, stays visible in the event log, and is counted.
@Suite struct ForgedOwnershipTests {
    static let victim = "user-victim"
    static let attacker = "user-attacker"
    static let victimCheckout = "chk-victim-0001"
    static let attackerCheckout = "chk-attacker-0001"
    static let fixtureProof = TestOwnership.proof(checkoutID: Support.fixtureOwner.checkout, appUserID: Support.fixtureOwner.user)

    /// The victim's checkout, open and not paid.
    static func victimCheckoutRecord() -> CheckoutCreatedRecord {
        CheckoutCreatedRecord(
            checkoutID: victimCheckout, provider: .lemonsqueezy, appUserID: victim, email: "victim@example.com",
            variantID: CatalogID(provider: .lemonsqueezy, rawID: "472301")!, productID: nil, providerCheckoutID: "lsc-victim",
            url: "https://example.test/checkout", createdAt: Timestamp.parse("2025-03-03T09:00:00Z")!, expiresAt: nil)
    }

    enum Forgery: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// The ids alone, as on a hand-made buy link.
        case noProof
        /// Something in the proof's place that is no proof.
        case badProof
        /// The victim's own proof (for the victim's checkout), with the attacker named as the user.
        case proofForAnotherUser
        /// The attacker's valid proof for the attacker's own checkout, naming the victim's checkout.
        case proofForAnotherCheckout
        /// The right pair, signed with a key that is not the deployment's.
        case proofUnderAnotherKey

        var testDescription: String { rawValue }

        /// The `storefront_proof` value; nil: none.
        var proof: String? {
            switch self {
            case .noProof: nil
            case .badProof: String(repeating: "de", count: 32)
            case .proofForAnotherUser: TestOwnership.proof(checkoutID: ForgedOwnershipTests.victimCheckout, appUserID: ForgedOwnershipTests.victim)
            case .proofForAnotherCheckout:
                TestOwnership.proof(checkoutID: ForgedOwnershipTests.attackerCheckout, appUserID: ForgedOwnershipTests.attacker)
            case .proofUnderAnotherKey:
                (try? OwnershipProof(key: Secret("not-the-deployment-key-but-long-enough-0123")))?
                    .proof(checkoutID: ForgedOwnershipTests.victimCheckout, appUserID: ForgedOwnershipTests.attacker)
            }
        }
    }

    /// The fixture's `subscription_created` with custom data naming `user`
    /// and `checkout`, and `proof` (nil: no proof key at all).
    static func lemonSqueezyPurchase(user: String, checkout: String, proof: String?) throws -> KafkaConsumerRecord {
        var replacing = [
            "\"\(Support.fixtureOwner.user)\"": "\"\(user)\"", "\"\(Support.fixtureOwner.checkout)\"": "\"\(checkout)\"",
        ]
        if let proof {
            replacing[fixtureProof] = proof
        } else {
            replacing["\"storefront_proof\": \"\(fixtureProof)\""] = "\"note\": \"no proof\""
        }
        return try Support.webhookRecord(
            .lemonsqueezy, Support.body("lemonsqueezy.webhook.subscription_created.synthetic.json", replacing: replacing))
    }

    static func unprovenCount(_ metrics: MetricsRegistry, _ provider: Provider) -> String? {
        let prefix = "projector_unproven_ownership_claims_total{provider=\"\(provider.rawValue)\"} "
        return metrics.renderPrometheus().split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    @Test(arguments: Forgery.allCases)
    func aForgedLemonSqueezyClaimGivesNoOwnerAndCompletesNoCheckout(_ forgery: Forgery) async throws {
        try await Support.withDatabase { pool in
            let metrics = MetricsRegistry()
            let projector = Support.projector(pool, metrics: metrics)
            let checkout = Self.victimCheckoutRecord()
            _ = try await projector.apply([Support.record(Topics.checkouts, key: checkout.key, value: try RecordCoding.encode(checkout))])
            #expect(Self.unprovenCount(metrics, .lemonsqueezy) == "0")

            let outcome = try await projector.apply([
                try Self.lemonSqueezyPurchase(user: Self.attacker, checkout: Self.victimCheckout, proof: forgery.proof)
            ])
            #expect(outcome.applied == 1 && outcome.deadLettered == 0, "applied, without an owner")

            #expect(try await OwnershipTests.owners(pool).isEmpty, "no owner")
            #expect(try await Support.count(pool, "SELECT count(*) FROM subscriptions WHERE subscription_id = '880123' AND app_user_id IS NULL") == 1)
            #expect(try await Support.count(pool, "SELECT count(*) FROM app_users WHERE app_user_id = \(Self.attacker)") == 0)
            #expect(
                try await Support.count(pool, "SELECT count(*) FROM checkouts WHERE checkout_id = \(Self.victimCheckout) AND completed_at IS NULL")
                    == 1, "the victim's checkout is still open")
            // The claim is kept for audit, in the logged event's custom data only.
            let logged = try await pool.query(
                """
                SELECT app_user_id, checkout_id, event->'customData'->>'storefront_user_id', event->'customData'->>'storefront_checkout_id'
                FROM billing_events
                """)
            let (user, checkoutID, claimedUser, claimedCheckout) = try #require(logged.first).decode((String?, String?, String?, String?).self)
            #expect(user == nil && checkoutID == nil)
            #expect(claimedUser == Self.attacker && claimedCheckout == Self.victimCheckout)
            #expect(Self.unprovenCount(metrics, .lemonsqueezy) == "1")
            #expect(Self.unprovenCount(metrics, .paystack) == "0")
        }
    }

    /// The same purchase with the checkout's real proof: owned, and the checkout completed.
    @Test func aProvenClaimOwnsAndCompletes() async throws {
        try await Support.withDatabase { pool in
            let metrics = MetricsRegistry()
            let projector = Support.projector(pool, metrics: metrics)
            let checkout = Self.victimCheckoutRecord()
            _ = try await projector.apply([
                Support.record(Topics.checkouts, key: checkout.key, value: try RecordCoding.encode(checkout)),
                try Self.lemonSqueezyPurchase(
                    user: Self.victim, checkout: Self.victimCheckout,
                    proof: TestOwnership.proof(checkoutID: Self.victimCheckout, appUserID: Self.victim)),
            ])
            #expect(try await OwnershipTests.owners(pool) == ["subscription:880123": Self.victim])
            #expect(
                try await Support.count(
                    pool, "SELECT count(*) FROM checkouts WHERE checkout_id = \(Self.victimCheckout) AND completed_at IS NOT NULL") == 1)
            #expect(Self.unprovenCount(metrics, .lemonsqueezy) == "0")
        }
    }

    /// A Paystack charge whose metadata names a user without a proof: neither
    /// the charge nor the subscription it creates gets that owner.
    @Test func aForgedPaystackChargeOwnsNeitherItselfNorItsSubscription() async throws {
        try await Support.withDatabase { pool in
            let metrics = MetricsRegistry()
            let projector = Support.projector(pool, metrics: metrics)
            let customer = "CUS_forged1", email = "payer@example.com", plan = "PLN_premium1"
            let charge = OwnershipTests.paystackCharge(
                user: Self.attacker, customer: customer, email: email, plan: plan, authorization: "AUTH_f1", id: 4001, at: 0)
            // The same charge with its metadata's proof removed.
            let forged = Array(String(decoding: charge, as: UTF8.self).replacingOccurrences(of: "\"storefront_proof\"", with: "\"note\"").utf8)
            _ = try await projector.apply([
                try OwnershipTests.record(.paystack, forged, receivedAt: 1),
                try OwnershipTests.record(
                    .paystack,
                    OwnershipTests.paystackSubscription(
                        "subscription.create", code: "SUB_forged", customer: customer, email: email, plan: plan, authorization: "AUTH_f1",
                        status: "active"), receivedAt: 2),
            ])
            #expect(try await OwnershipTests.owners(pool).isEmpty)
            #expect(
                try await Support.count(pool, "SELECT count(*) FROM subscriptions WHERE subscription_id = 'SUB_forged' AND app_user_id IS NULL") == 1)
            #expect(Self.unprovenCount(metrics, .paystack) == "1")
        }
    }

    /// Other integrations' keys (`app_user_id`, `user_id`) are no claim at all.
    @Test func fallbackKeysGiveNoOwner() async throws {
        try await Support.withDatabase { pool in
            let metrics = MetricsRegistry()
            let projector = Support.projector(pool, metrics: metrics)
            let lemonSqueezy = try Support.body(
                "lemonsqueezy.webhook.subscription_created.synthetic.json",
                replacing: [
                    "\"storefront_user_id\"": "\"app_user_id\"", "\"storefront_checkout_id\"": "\"user_id\"",
                    "\"storefront_proof\"": "\"note\"",
                ])
            let customer = "CUS_fallback1", email = "fallback@example.com", plan = "PLN_premium1"
            let paystack = Array(
                String(
                    decoding: OwnershipTests.paystackCharge(
                        user: Self.attacker, customer: customer, email: email, plan: plan, authorization: "AUTH_fb1", id: 5001, at: 0),
                    as: UTF8.self
                )
                .replacingOccurrences(of: "\"storefront_user_id\"", with: "\"app_user_id\"")
                .replacingOccurrences(of: "\"storefront_checkout_id\"", with: "\"user_id\"").utf8)
            _ = try await projector.apply([
                try Support.webhookRecord(.lemonsqueezy, lemonSqueezy),
                try OwnershipTests.record(.paystack, paystack, receivedAt: 1),
                try OwnershipTests.record(
                    .paystack,
                    OwnershipTests.paystackSubscription(
                        "subscription.create", code: "SUB_fallback", customer: customer, email: email, plan: plan, authorization: "AUTH_fb1",
                        status: "active"), receivedAt: 2),
            ])
            #expect(try await OwnershipTests.owners(pool).isEmpty)
            #expect(try await Support.count(pool, "SELECT count(*) FROM subscriptions WHERE app_user_id IS NOT NULL") == 0)
            #expect(try await Support.count(pool, "SELECT count(*) FROM orders WHERE app_user_id IS NOT NULL") == 0)
            #expect(try await Support.count(pool, "SELECT count(*) FROM app_users") == 0)
            // No Storefront key, so no claim to count either.
            #expect(Self.unprovenCount(metrics, .lemonsqueezy) == "0" && Self.unprovenCount(metrics, .paystack) == "0")
        }
    }
}
