import Foundation
import Synchronization
import BillingModel
import Postgres
import Telemetry
import TestSupport
import Testing
@testable import CheckoutService

/// Redemption links and merges against real PostgreSQL (docs/web-first.md):
/// the first redemption decides, a link expires, the answer never changes
/// anything but on `redeemed`, a merge happens once. The broker is a
/// recording publisher: what would be published is checked, not sent.
@Suite struct RedemptionStoreTests {
    final class Recorder: RecordPublisher {
        let records = Mutex<[(topic: String, value: [UInt8])]>([])
        let failNext = Atomic<Bool>(false)
        func publish(topic: String, key: String, value: [UInt8]) async throws {
            if failNext.exchange(false, ordering: .relaxed) { throw CancellationError() }
            records.withLock { $0.append((topic, value)) }
        }
        func count(_ topic: String) -> Int { records.withLock { $0.filter { $0.topic == topic }.count } }
    }

    final class Clock: Sendable {
        let now = Mutex(Date(timeIntervalSince1970: 1_900_000_000))
        func advance(_ seconds: TimeInterval) { now.withLock { $0 += seconds } }
    }

    static let logger = Logger(service: "redemption-tests", minimumLevel: .critical)
    static let purchase = WebFirstReads.Purchase(
        reference: PurchaseReference(provider: "lemonsqueezy", type: .subscription, id: "sub-web-1"), owner: nil, email: "buyer@example.com")

    static func redemptions(_ pool: PostgresPool, _ publisher: Recorder, _ clock: Clock) throws -> Redemptions {
        Redemptions(
            pool: pool, reads: WebFirstReads(pool: pool), tokens: try #require(RedemptionTokens(ownership: TestOwnership.proof)),
            publisher: publisher, ttl: .seconds(3600), publicURL: "https://shop.example.com", now: { clock.now.withLock { $0 } })
    }

    static func user(_ id: String) -> AppUser { AppUser(id: id, email: nil) }

    @Test func theFirstRedemptionDecidesAndOthersAreRefused() async throws {
        try await TestDatabase.with { pool in
            try await ProjectionRows.subscription(pool, provider: "lemonsqueezy", id: "sub-web-1", appUserID: nil, status: "active")
            let publisher = Recorder(), clock = Clock()
            let redemptions = try Self.redemptions(pool, publisher, clock)
            let link = try #require(
                try await redemptions.completionPageLink(for: Self.purchase, checkoutID: "c-1", ref: "spring", logger: Self.logger))
            #expect(publisher.count(Topics.purchaseEvents) == 1, "the link is announced once")
            let again = try await redemptions.completionPageLink(for: Self.purchase, checkoutID: "c-1", ref: "spring", logger: Self.logger)
            #expect(again == link, "a reload shows the same link")
            #expect(publisher.count(Topics.purchaseEvents) == 1)
            // The token is stored hashed only.
            let stored = try await Support.count(pool, "SELECT count(*) FROM checkout_redemptions WHERE token_hash = \(Array(link.token.utf8))")
            #expect(stored == 0)

            let (first, purchase) = try await redemptions.redeem(link.token, user: Self.user("user-a"), logger: Self.logger)
            #expect(first == .redeemed && purchase == Self.purchase.reference)
            #expect(publisher.count(Topics.commands) == 1)
            #expect(try await redemptions.redeem(link.token, user: Self.user("user-a"), logger: Self.logger).0 == .alreadyYours)
            #expect(try await redemptions.redeem(link.token, user: Self.user("user-b"), logger: Self.logger).0 == .belongsToAnotherUser)
            // A second link of the same purchase (a resend) is refused to anyone else as well.
            let resent = try await redemptions.issue(for: Self.purchase, checkoutID: nil, via: "resend", ref: nil, logger: Self.logger)
            #expect(try await redemptions.redeem(resent.token, user: Self.user("user-b"), logger: Self.logger).0 == .belongsToAnotherUser)
            #expect(publisher.count(Topics.commands) == 1, "refusals publish nothing")
            #expect(try await redemptions.redeem(String(repeating: "A", count: 43), user: Self.user("user-a"), logger: Self.logger).0 == .unknown)
            // Redeemed: the completion page shows no link any more.
            #expect(try await redemptions.completionPageLink(for: Self.purchase, checkoutID: "c-1", ref: nil, logger: Self.logger) == nil)
        }
    }

    @Test func anExpiredLinkIsGoneAndAPurchaseSomeoneOwnsIsRefused() async throws {
        try await TestDatabase.with { pool in
            try await ProjectionRows.subscription(pool, provider: "lemonsqueezy", id: "sub-web-1", appUserID: nil, status: "active")
            let publisher = Recorder(), clock = Clock()
            let redemptions = try Self.redemptions(pool, publisher, clock)
            let link = try await redemptions.issue(for: Self.purchase, checkoutID: "c-1", via: "completion_page", ref: nil, logger: Self.logger)
            clock.advance(3601)
            #expect(try await redemptions.redeem(link.token, user: Self.user("user-a"), logger: Self.logger).0 == .expired)
            let fresh = try #require(
                try await redemptions.completionPageLink(for: Self.purchase, checkoutID: "c-1", ref: nil, logger: Self.logger))
            #expect(fresh.token != link.token, "an expired link is replaced")
            try await ProjectionRows.owner(pool, provider: "lemonsqueezy", id: "sub-web-1", appUserID: "user-email")
            #expect(try await redemptions.redeem(fresh.token, user: Self.user("user-a"), logger: Self.logger).0 == .belongsToAnotherUser)
            #expect(try await redemptions.redeem(fresh.token, user: Self.user("user-email"), logger: Self.logger).0 == .alreadyYours)
            #expect(publisher.count(Topics.commands) == 0)
        }
    }

    @Test func aRedemptionWhoseCommandIsNotPublishedStaysUnredeemed() async throws {
        try await TestDatabase.with { pool in
            try await ProjectionRows.subscription(pool, provider: "lemonsqueezy", id: "sub-web-1", appUserID: nil, status: "active")
            let publisher = Recorder(), clock = Clock()
            let redemptions = try Self.redemptions(pool, publisher, clock)
            let link = try await redemptions.issue(for: Self.purchase, checkoutID: nil, via: "resend", ref: nil, logger: Self.logger)
            publisher.failNext.store(true, ordering: .relaxed)
            await #expect(throws: (any Error).self) { try await redemptions.redeem(link.token, user: Self.user("user-a"), logger: Self.logger) }
            #expect(try await redemptions.redeem(link.token, user: Self.user("user-b"), logger: Self.logger).0 == .redeemed)
        }
    }

    @Test func anAnonymousUserMergesOnce() async throws {
        try await TestDatabase.with { pool in
            let publisher = Recorder()
            let merges = UserMerges(pool: pool, publisher: publisher, now: { Date() })
            let anonymous = "anon_0123456789abcdef0123456789abcdef"
            let first = try await merges.merge(anonymous, into: "user-a", logger: Self.logger)
            let again = try await merges.merge(anonymous, into: "user-a", logger: Self.logger)
            let elsewhere = try await merges.merge(anonymous, into: "user-b", logger: Self.logger)
            #expect(first == .merged && again == .alreadyMerged && elsewhere == .mergedElsewhere)
            #expect(publisher.count(Topics.commands) == 2, "the same pair again is published again, nothing for another user")
            publisher.failNext.store(true, ordering: .relaxed)
            let other = "anon_ffffffffffffffffffffffffffffffff"
            await #expect(throws: (any Error).self) { try await merges.merge(other, into: "user-b", logger: Self.logger) }
            let retried = try await merges.merge(other, into: "user-c", logger: Self.logger)
            #expect(retried == .merged, "a merge not published was undone")
        }
    }
}

/// Counts rows.
enum Support {
    static func count(_ pool: PostgresPool, _ query: PostgresQuery) async throws -> Int {
        try await pool.query(query)[0].decode(column: 0, as: Int.self)
    }
}
