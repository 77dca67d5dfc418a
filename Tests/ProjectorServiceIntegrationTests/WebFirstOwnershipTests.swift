import Foundation
import Kafka
import BillingModel
import Postgres
import ProjectionStore
import ProjectorService
import TestSupport
import Testing
import Webhooks

/// Web-first ownership through the projector's real write path and
/// PostgreSQL (docs/web-first.md): an anonymous checkout's purchase has no
/// owner until redeemed; the first redemption is the strongest evidence; a
/// merged anonymous user's purchases belong to the user it merged into, once.
@Suite struct WebFirstOwnershipTests {
    static let t0 = OwnershipTests.t0
    static let customer = "CUS_web1", email = "buyer@example.com", plan = "PLN_premium1", checkout = "5b0c9a3e-1d2f-4e5a-8b7c-6d9e0f1a2b3c"

    /// A Paystack charge from an anonymous checkout (its metadata: the checkout id and its anonymous proof) and the subscription it created.
    static func anonymousPurchase() throws -> [KafkaConsumerRecord] {
        let metadata =
            #"{"storefront_checkout_id":"\#(checkout)","storefront_proof":"\#(TestOwnership.proof.proof(anonymousCheckoutID: checkout))"}"#
        let charge = OwnershipTests.paystackCharge(
            user: nil, customer: customer, email: email, plan: plan, authorization: "AUTH_w1", id: 3001, at: 0)
        let withMetadata = Array(
            String(decoding: charge, as: UTF8.self).replacingOccurrences(of: #""metadata":null"#, with: #""metadata":\#(metadata)"#).utf8)
        return [
            try OwnershipTests.record(.paystack, withMetadata, receivedAt: 1),
            try OwnershipTests.record(
                .paystack,
                OwnershipTests.paystackSubscription(
                    "subscription.create", code: "SUB_web", customer: customer, email: email, plan: plan, authorization: "AUTH_w1",
                    status: "active"), receivedAt: 2),
        ]
    }

    static func command(_ kind: SubscriptionCommand.Kind, user: String) throws -> KafkaConsumerRecord {
        var command = SubscriptionCommand(
            commandID: UUID().uuidString.lowercased(), kind: kind, provider: .paystack, subscriptionID: "SUB_web", appUserID: user,
            requestedAt: t0.addingTimeInterval(3600))
        command.purchaseType = .subscription
        return Support.record(Topics.commands, key: command.key, value: try RecordCoding.encode(command))
    }

    static func merge(_ anonymous: String, into user: String) throws -> KafkaConsumerRecord {
        let merge = UserMergeCommand(
            commandID: UUID().uuidString.lowercased(), anonymousUserID: anonymous, appUserID: user, requestedAt: t0.addingTimeInterval(7200))
        return Support.record(Topics.commands, key: merge.key, value: try RecordCoding.encode(merge))
    }

    static func owner(_ pool: PostgresPool) async throws -> String? {
        let rows = try await pool.query("SELECT app_user_id FROM subscriptions WHERE subscription_id = 'SUB_web'")
        guard let row = rows.first else { return nil }
        return try row.decode(String?.self)
    }

    @Test func anAnonymousPurchaseHasNoOwnerButKeepsItsProvenCheckout() async throws {
        try await Support.withDatabase { pool in
            _ = try await Support.projector(pool).apply(try Self.anonymousPurchase())
            #expect(try await Self.owner(pool) == nil)
            #expect(try await OwnershipTests.owners(pool).isEmpty)
            let linked = try await Support.count(pool, "SELECT count(*) FROM billing_events WHERE checkout_id = \(Self.checkout)")
            #expect(linked == 1, "the charge keeps the anonymous checkout's id")
        }
    }

    /// Whichever comes first, a redemption outranks a verified-email claim, and the first redemption stands.
    @Test(arguments: [true, false])
    func theFirstRedemptionOwnsThePurchase(claimFirst: Bool) async throws {
        try await Support.withDatabase { pool in
            let projector = Support.projector(pool)
            _ = try await projector.apply(try Self.anonymousPurchase())
            let claim = try Self.command(.claimByEmail, user: "user-email")
            let redeem = try Self.command(.redeem, user: "user-redeemer")
            for record in claimFirst ? [claim, redeem] : [redeem, claim] { _ = try await projector.apply([record]) }
            #expect(try await Self.owner(pool) == "user-redeemer")
            _ = try await projector.apply([try Self.command(.redeem, user: "user-late")])
            #expect(try await Self.owner(pool) == "user-redeemer", "a second redemption adds no evidence")
            let sources = try await pool.query("SELECT source FROM purchase_owners WHERE app_user_id = 'user-redeemer'")
            let names = try sources.map { try $0.decode(String.self) }
            #expect(names == ["redemption"])
        }
    }

    /// An anonymous user's purchase moves to the user it is merged into, in either order, and only the first merge counts.
    @Test(arguments: [true, false])
    func aMergedAnonymousUsersPurchaseBelongsToTheSignedInUser(mergeFirst: Bool) async throws {
        try await Support.withDatabase { pool in
            let projector = Support.projector(pool)
            _ = try await projector.apply(try Self.anonymousPurchase())
            let anonymous = "anon_0123456789abcdef0123456789abcdef"
            let redeem = try Self.command(.redeem, user: anonymous)
            let merge = try Self.merge(anonymous, into: "user-a")
            for record in mergeFirst ? [merge, redeem] : [redeem, merge] { _ = try await projector.apply([record]) }
            #expect(try await Self.owner(pool) == "user-a")
            _ = try await projector.apply([try Self.merge(anonymous, into: "user-hostile")])
            #expect(try await Self.owner(pool) == "user-a", "an anonymous id merges once")
            let aliases = try await pool.query("SELECT app_user_id FROM user_aliases WHERE anonymous_id = \(anonymous)")
            let merged = try aliases.map { try $0.decode(String.self) }
            #expect(merged == ["user-a"])
        }
    }
}
