import Foundation
import BillingModel
import Kafka
import Postgres
import ProjectorService
import Telemetry
import TestSupport
import Testing

/// Stripe's claim, through the projector's real write path: the checkout's
/// metadata owns a subscription only with a valid proof. A Payment Link's
/// `client_reference_id` (anyone may set it in the link's URL) or a forged
/// proof owns nothing.
@Suite struct StripeOwnershipTests {
    static let victim = "user-victim", attacker = "user-attacker", checkout = "chk-stripe-0001"

    /// The subscription checkout's completion, with `metadata` (nil: none at all) and `client_reference_id`.
    static func completion(metadata: [String: String]?, clientReference: String?) throws -> KafkaConsumerRecord {
        var body = try #require(
            try JSONSerialization.jsonObject(with: Data(Fixture.bytes("stripe.webhook.checkout_session_completed.subscription.synthetic.json")))
                as? [String: Any])
        var data = try #require(body["data"] as? [String: Any])
        var object = try #require(data["object"] as? [String: Any])
        object["metadata"] = metadata ?? [:]
        object["client_reference_id"] = clientReference ?? NSNull()
        data["object"] = object
        body["data"] = data
        return try Support.webhookRecord(.stripe, Array(try JSONSerialization.data(withJSONObject: body)))
    }

    static func claim(user: String, proof: String) -> [String: String] {
        [CustomDataKeys.appUserID: user, CustomDataKeys.checkoutID: checkout, CustomDataKeys.proof: proof]
    }

    @Test func aProvenClaimOwnsTheSubscription() async throws {
        try await Support.withDatabase { pool in
            let proof = TestOwnership.proof(checkoutID: Self.checkout, appUserID: Self.victim)
            _ = try await Support.projector(pool).apply([
                try Self.completion(metadata: Self.claim(user: Self.victim, proof: proof), clientReference: Self.victim)
            ])
            #expect(try await OwnershipTests.owners(pool) == ["subscription:sub_1QmSc2StorefrontSub": Self.victim])
        }
    }

    @Test(arguments: ["payment link", "forged proof", "another user's proof"])
    func anUnprovenClaimOwnsNothing(_ forgery: String) async throws {
        try await Support.withDatabase { pool in
            let metrics = MetricsRegistry()
            let record: KafkaConsumerRecord
            switch forgery {
            case "payment link": record = try Self.completion(metadata: nil, clientReference: Self.attacker)
            case "forged proof":
                record = try Self.completion(
                    metadata: Self.claim(user: Self.attacker, proof: String(repeating: "ab", count: 32)), clientReference: Self.attacker)
            default:
                let victimsProof = TestOwnership.proof(checkoutID: Self.checkout, appUserID: Self.victim)
                record = try Self.completion(metadata: Self.claim(user: Self.attacker, proof: victimsProof), clientReference: Self.attacker)
            }
            let outcome = try await Support.projector(pool, metrics: metrics).apply([record])
            #expect(outcome.applied == 1 && outcome.deadLettered == 0, "applied, without an owner")
            #expect(try await OwnershipTests.owners(pool).isEmpty, "no owner")
            #expect(try await Support.count(pool, "SELECT count(*) FROM app_users WHERE app_user_id = \(Self.attacker)") == 0)
        }
    }
}
