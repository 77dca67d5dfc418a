import Foundation
import BillingModel
import ProjectionStore
import Entitlements
import Synchronization
import Telemetry
import Testing
@testable import CheckoutService

/// A read that finds a subscription past its period end asks the reconciler
/// to fetch it (a `refresh_requested` command), once per interval; a fresh
/// one asks nothing. Over a recording publisher: no broker, no database.
@Suite struct SubscriptionRefresherTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)
    static let day: TimeInterval = 86_400
    static let user = AppUser(id: "user-1", email: "ada@example.com", emailVerified: true)
    static let logger = Logger(service: "subscription-refresher-tests", minimumLevel: .critical)

    /// Keeps every record; fails the first `failures` calls.
    final class RecordingPublisher: RecordPublisher {
        struct Record: Sendable {
            let topic: String
            let key: String
            let value: [UInt8]
        }
        let state: Mutex<(records: [Record], failures: Int)>
        init(failures: Int = 0) { state = Mutex(([], failures)) }
        var records: [Record] { state.withLock { $0.records } }
        func publish(topic: String, key: String, value: [UInt8]) async throws {
            try state.withLock { state in
                if state.failures > 0 {
                    state.failures -= 1
                    throw BrokerDown()
                }
                state.records.append(Record(topic: topic, key: key, value: value))
            }
        }
        struct BrokerDown: Error {}
    }

    struct Harness {
        let publisher: RecordingPublisher
        let registry = MetricsRegistry()
        let refresher: SubscriptionRefresher

        init(publisher: RecordingPublisher = RecordingPublisher(), limiter: CommandLimiter = CommandLimiter()) {
            self.publisher = publisher
            refresher = SubscriptionRefresher(publisher: publisher, limiter: limiter, metrics: CheckoutMetrics(registry: registry))
        }

        /// One read at `at`; waits for its background publish.
        func read(_ subscriptions: [SubscriptionState], at: Date = now, policy: AccessPolicy = AccessPolicy(testDeployment: true)) async -> Bool {
            let snapshot = SubscriptionStatusSnapshot(
                now: at, subscriptions: subscriptions, orders: [], pendingCheckout: nil, resolver: EntitlementResolver(policy: policy))
            guard let task = refresher.refreshOverdue(in: snapshot, for: SubscriptionRefresherTests.user, logger: SubscriptionRefresherTests.logger)
            else { return false }
            await task.value
            return true
        }

        func count(_ result: CheckoutMetrics.RefreshResult) -> Int {
            CheckoutMetrics(registry: registry).refreshRequests(result).current
        }

        var commands: [SubscriptionCommand] {
            get throws { try publisher.records.map { try RecordCoding.decode(SubscriptionCommand.self, from: $0.value) } }
        }
    }

    static func subscription(_ id: String, _ provider: Provider = .lemonsqueezy, status: String = "active", renewsAt: Date) -> SubscriptionState {
        var s = SubscriptionState(provider: provider, subscriptionID: id)
        s.status = status
        s.renewsAt = renewsAt
        s.appUserID = user.id
        s.productID = "2"
        return s
    }

    static let stale = subscription("41", renewsAt: now.addingTimeInterval(-day))
    static let fresh = subscription("42", renewsAt: now.addingTimeInterval(20 * day))

    @Test func aStaleSubscriptionReadPublishesExactlyOneRefreshCommandAndAFreshOneNone() async throws {
        let harness = Harness()
        #expect(await harness.read([Self.fresh, Self.stale]))
        let records = harness.publisher.records
        #expect(records.count == 1)
        let record = try #require(records.first)
        #expect(record.topic == Topics.commands && record.key == "lemonsqueezy:41")
        let command = try #require(try harness.commands.first)
        #expect(command.kind == .refreshRequested && command.kind.rawValue == "refresh_requested")
        #expect(command.provider == .lemonsqueezy && command.subscriptionID == "41" && command.purchaseType == .subscription)
        #expect(command.appUserID == "user-1" && command.requestedAt == Self.now && command.observed == nil)
        #expect(command.key == TopicKey.command(.lemonsqueezy, subscriptionID: "41"), "keyed as every other command")
        #expect(UUID(uuidString: command.commandID) != nil)
        #expect(harness.count(.published) == 1)

        // Read again and again: still one command (the limiter), each repeat counted.
        #expect(!(await harness.read([Self.fresh, Self.stale], at: Self.now.addingTimeInterval(1))))
        #expect(!(await harness.read([Self.stale], at: Self.now.addingTimeInterval(299))))
        #expect(harness.publisher.records.count == 1 && harness.count(.limited) == 2)

        // A fresh subscription alone asks nothing.
        let quiet = Harness()
        #expect(!(await quiet.read([Self.fresh])))
        #expect(!(await quiet.read([Self.fresh, Self.subscription("43", renewsAt: Self.now.addingTimeInterval(1))])))
        #expect(quiet.publisher.records.isEmpty && quiet.count(.published) == 0 && quiet.count(.limited) == 0)
    }

    @Test func afterTheIntervalTheNextReadAsksAgain() async throws {
        let harness = Harness()
        #expect(await harness.read([Self.stale]))
        #expect(await harness.read([Self.stale], at: Self.now.addingTimeInterval(300)))
        #expect(try harness.commands.map(\.subscriptionID) == ["41", "41"])
        #expect(Set(try harness.commands.map(\.commandID)).count == 2, "each request is a command of its own")
    }

    @Test func everyRenewingStatusOfBothProvidersPastItsEndIsRefreshedAndEndedOnesAreNot() async throws {
        let past = Self.now.addingTimeInterval(-3600)
        var trial = Self.subscription("t", status: "on_trial", renewsAt: Self.now.addingTimeInterval(Self.day))
        trial.trialEndsAt = past
        var pausedFree = Self.subscription("p", status: "paused", renewsAt: Self.now.addingTimeInterval(Self.day))
        pausedFree.pauseMode = "free"
        pausedFree.pauseResumesAt = past
        let refreshed = [
            trial, pausedFree, Self.subscription("a", renewsAt: past), Self.subscription("d", status: "past_due", renewsAt: past),
            Self.subscription("SUB_a", .paystack, renewsAt: past), Self.subscription("SUB_x", .paystack, status: "attention", renewsAt: past),
        ]
        var cancelled = Self.subscription("c", status: "cancelled", renewsAt: past)
        cancelled.endsAt = past
        let left = [
            cancelled, Self.subscription("e", status: "expired", renewsAt: past), Self.subscription("u", status: "unpaid", renewsAt: past),
            Self.subscription("SUB_n", .paystack, status: "non-renewing", renewsAt: past),
            Self.subscription("SUB_c", .paystack, status: "complete", renewsAt: past),
        ]
        let harness = Harness()
        #expect(await harness.read(refreshed + left))
        #expect(Set(try harness.commands.map(\.subscriptionID)) == Set(refreshed.map(\.subscriptionID)))
        #expect(Set(harness.publisher.records.map(\.key)) == Set(refreshed.map { TopicKey.command($0.provider, subscriptionID: $0.subscriptionID) }))
    }

    @Test func onlyWithinTheRenewalGraceOrTheFirstDayAfterThePeriodEnd() async throws {
        let grace = AccessPolicy.defaultRenewalGrace
        let harness = Harness()
        let ancient = Self.subscription("old", renewsAt: Self.now.addingTimeInterval(-2.5 * 365 * Self.day))
        let justOver = Self.subscription("over", renewsAt: Self.now.addingTimeInterval(-grace))
        let lastSecond = Self.subscription("last", renewsAt: Self.now.addingTimeInterval(-grace + 1))
        #expect(await harness.read([ancient, justOver, lastSecond]))
        #expect(try harness.commands.map(\.subscriptionID) == ["last"], "after the grace the sweep is the net")

        // With no renewal grace access ends at the period end; reads still ask for a day.
        let noGrace = AccessPolicy(renewalGrace: 0, testDeployment: true)
        let other = Harness()
        let hourAgo = Self.subscription("h", renewsAt: Self.now.addingTimeInterval(-3600))
        let twoDaysAgo = Self.subscription("2d", renewsAt: Self.now.addingTimeInterval(-2 * Self.day))
        #expect(await other.read([hourAgo, twoDaysAgo], policy: noGrace))
        #expect(try other.commands.map(\.subscriptionID) == ["h"])
    }

    @Test func aSubscriptionOfTheOtherModeIsNotRefreshed() async throws {
        var live = Self.stale
        live.testMode = false
        let harness = Harness()
        #expect(!(await harness.read([live])), "a live subscription in a test deployment")
        #expect(await harness.read([live], policy: AccessPolicy(testDeployment: false)))
    }

    @Test func aFailedPublishIsCountedAndTheReadGoesOn() async throws {
        let harness = Harness(publisher: RecordingPublisher(failures: 1))
        let second = Self.subscription("99", .paystack, renewsAt: Self.now.addingTimeInterval(-60))
        #expect(await harness.read([Self.stale, second]))
        #expect(harness.count(.failed) == 1 && harness.count(.published) == 1)
        #expect(try harness.commands.map(\.subscriptionID) == ["99"], "the failure stopped nothing else")
        // The failed one is not retried within the interval (the broker is likely down); after it, it is.
        #expect(!(await harness.read([Self.stale], at: Self.now.addingTimeInterval(60))))
        #expect(await harness.read([Self.stale], at: Self.now.addingTimeInterval(300)))
        #expect(try harness.commands.map(\.subscriptionID) == ["99", "41"])
    }

    @Test func theLimiterIsBoundedAndForgetsWhatIsOlderThanItsInterval() {
        let limiter = CommandLimiter(interval: 300, capacity: 2)
        #expect(limiter.admit("a", at: Self.now) == .admitted)
        #expect(limiter.admit("a", at: Self.now.addingTimeInterval(299)) == .tooSoon)
        #expect(limiter.admit("b", at: Self.now.addingTimeInterval(10)) == .admitted)
        #expect(limiter.admit("c", at: Self.now.addingTimeInterval(20)) == .full, "two remembered, both recent")
        #expect(limiter.count == 2)
        // "a" is over its interval: forgotten to make room.
        #expect(limiter.admit("c", at: Self.now.addingTimeInterval(305)) == .admitted)
        #expect(limiter.count == 2)
        #expect(limiter.admit("a", at: Self.now.addingTimeInterval(306)) == .full, "b and c are recent")
        #expect(limiter.admit("b", at: Self.now.addingTimeInterval(310)) == .admitted, "a known key past its interval needs no room")
        // A clock that went back does not block a key.
        #expect(limiter.admit("b", at: Self.now) == .admitted)
    }
}
