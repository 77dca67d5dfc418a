import Foundation
import Synchronization
import BillingModel
import ProjectionStore
import Entitlements
import Testing
@testable import CheckoutService

/// Reads that find an unowned purchase through the caller's verified email
/// claim it once per interval, not once per read, while the projector has
/// not applied the claim yet; a claim whose publish failed is tried again at
/// the next read. Over a recording publisher: no broker, no database.
@Suite struct PurchaseClaimerTests {
    typealias RecordingPublisher = SubscriptionRefresherTests.RecordingPublisher
    static let now = SubscriptionRefresherTests.now
    static let user = SubscriptionRefresherTests.user
    static let logger = SubscriptionRefresherTests.logger

    static func snapshot(owner: String? = nil) -> SubscriptionStatusSnapshot {
        var subscription = SubscriptionState(provider: .paystack, subscriptionID: "SUB_unowned")
        subscription.status = "active"
        subscription.appUserID = owner
        return SubscriptionStatusSnapshot(
            now: now, subscriptions: [subscription], orders: [], pendingCheckout: nil,
            resolver: EntitlementResolver(policy: AccessPolicy(testDeployment: true)))
    }

    static func claims(_ publisher: RecordingPublisher) throws -> [SubscriptionCommand] {
        try publisher.records.map { try RecordCoding.decode(SubscriptionCommand.self, from: $0.value) }
    }

    @Test func readsDuringProjectorLagClaimOncePerInterval() async throws {
        let publisher = RecordingPublisher()
        let clock = MovableClock(Self.now)
        let claimer = PurchaseClaimer(publisher: publisher, now: clock.read)
        for second in [0.0, 1, 5, 30, 59] {
            clock.set(Self.now.addingTimeInterval(second))
            await claimer.claimUnowned(in: Self.snapshot(), for: Self.user, logger: Self.logger)
        }
        #expect(try Self.claims(publisher).map(\.kind) == [.claimByEmail], "five reads within a minute, one claim")
        clock.set(Self.now.addingTimeInterval(PurchaseClaimer.defaultInterval + 1))
        await claimer.claimUnowned(in: Self.snapshot(), for: Self.user, logger: Self.logger)
        #expect(try Self.claims(publisher).count == 2, "still unowned after the interval: claimed again")
        // Another user's read of the same purchase is limited separately.
        let other = AppUser(id: "user-2", email: "ada@example.com", emailVerified: true)
        await claimer.claimUnowned(in: Self.snapshot(), for: other, logger: Self.logger)
        #expect(try Self.claims(publisher).map(\.appUserID) == ["user-1", "user-1", "user-2"])
    }

    @Test func anOwnedPurchaseIsNeverClaimed() async throws {
        let publisher = RecordingPublisher()
        let claimer = PurchaseClaimer(publisher: publisher, now: { Self.now })
        await claimer.claimUnowned(in: Self.snapshot(owner: "someone"), for: Self.user, logger: Self.logger)
        #expect(publisher.records.isEmpty)
    }

    @Test func aClaimThatWasNotPublishedIsTriedAgainAtTheNextRead() async throws {
        let publisher = RecordingPublisher(failures: 1)
        let claimer = PurchaseClaimer(publisher: publisher, now: { Self.now })
        await claimer.claimUnowned(in: Self.snapshot(), for: Self.user, logger: Self.logger)
        #expect(publisher.records.isEmpty)
        await claimer.claimUnowned(in: Self.snapshot(), for: Self.user, logger: Self.logger)
        #expect(try Self.claims(publisher).map(\.subscriptionID) == ["SUB_unowned"])
    }
}

/// A clock the test moves.
final class MovableClock: Sendable {
    private let value: Mutex<Date>
    init(_ start: Date) { value = Mutex(start) }
    func set(_ date: Date) { value.withLock { $0 = date } }
    @Sendable func read() -> Date { value.withLock { $0 } }
}
