import Foundation
import BillingModel
import Testing
@testable import ProjectionStore
@testable import Entitlements

/// One test per provider status: what ``AccessRules`` grant, and for how long.
@Suite struct AccessRulesTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)
    static let test = AccessPolicy(testDeployment: true)

    static func state(_ provider: Provider, _ status: String, _ configure: (inout SubscriptionState) -> Void = { _ in }) -> SubscriptionState {
        var s = SubscriptionState(provider: provider, subscriptionID: "1")
        s.status = status
        s.renewsAt = now.addingTimeInterval(30 * 86_400)
        s.sourceUpdatedAt = now.addingTimeInterval(-3600)
        configure(&s)
        return s
    }

    static func access(_ s: SubscriptionState, _ policy: AccessPolicy = test) -> Access {
        AccessRules.access(s, policy: policy, at: now)
    }

    @Test func lemonSqueezyOnTrialIsATrialUntilItEnds() {
        let a = Self.access(Self.state(.lemonsqueezy, "on_trial") { $0.trialEndsAt = Self.now.addingTimeInterval(86_400) })
        #expect(a.isActive && a.willRenew && a.periodType == .trial)
        #expect(a.expiresAt == Self.now.addingTimeInterval(86_400))
    }

    @Test func lemonSqueezyActiveRenews() {
        let a = Self.access(Self.state(.lemonsqueezy, "active"))
        #expect(a.isActive && a.willRenew && a.periodType == .normal)
        #expect(a.expiresAt == Self.now.addingTimeInterval(30 * 86_400))
    }

    @Test func lemonSqueezyPastDueKeepsAccessWhileTheProviderRetries() {
        let a = Self.access(Self.state(.lemonsqueezy, "past_due") { $0.billingIssueDetectedAt = Self.now.addingTimeInterval(-86_400) })
        #expect(a.isActive && a.willRenew)
    }

    @Test func lemonSqueezyUnpaidHasNoAccessUnlessAGraceIsConfigured() {
        let unpaid = Self.state(.lemonsqueezy, "unpaid") { $0.billingIssueDetectedAt = Self.now.addingTimeInterval(-86_400) }
        #expect(!Self.access(unpaid).isActive)
        let graced = Self.access(unpaid, AccessPolicy(unpaidGrace: 2 * 86_400, testDeployment: true))
        #expect(graced.isActive && graced.expiresAt == Self.now.addingTimeInterval(86_400))
        #expect(!Self.access(unpaid, AccessPolicy(unpaidGrace: 3600, testDeployment: true)).isActive)
    }

    @Test func lemonSqueezyCancelledUntilEndsAt() {
        let inGrace = Self.access(
            Self.state(.lemonsqueezy, "cancelled") {
                $0.cancelAtPeriodEnd = true
                $0.endsAt = Self.now.addingTimeInterval(10)
            })
        #expect(inGrace.isActive && !inGrace.willRenew)
        let over = Self.access(Self.state(.lemonsqueezy, "cancelled") { $0.endsAt = Self.now.addingTimeInterval(-10) })
        #expect(!over.isActive)
    }

    @Test func lemonSqueezyPausedFreeKeepsServiceVoidDoesNot() {
        let free = Self.access(Self.state(.lemonsqueezy, "paused") { $0.pauseMode = "free" })
        #expect(free.isActive)
        let void = Self.access(Self.state(.lemonsqueezy, "paused") { $0.pauseMode = "void" })
        #expect(!void.isActive)
        let unknownMode = Self.access(Self.state(.lemonsqueezy, "paused"))
        #expect(!unknownMode.isActive)
    }

    @Test func lemonSqueezyExpiredHasNoAccess() {
        #expect(!Self.access(Self.state(.lemonsqueezy, "expired") { $0.endsAt = Self.now.addingTimeInterval(-10) }).isActive)
    }

    @Test func paystackActiveRenews() {
        let a = Self.access(Self.state(.paystack, "active"))
        #expect(a.isActive && a.willRenew)
    }

    @Test func paystackNonRenewingUntilThePeriodEnd() {
        let inPeriod = Self.access(
            Self.state(.paystack, "non-renewing") {
                $0.cancelAtPeriodEnd = true
                $0.endsAt = Self.now.addingTimeInterval(10)
            })
        #expect(inPeriod.isActive && !inPeriod.willRenew)
        let over = Self.access(
            Self.state(.paystack, "non-renewing") {
                $0.cancelAtPeriodEnd = true
                $0.endsAt = Self.now.addingTimeInterval(-10)
            })
        #expect(!over.isActive)
    }

    @Test func paystackAttentionOnlyWithinTheConfiguredGrace() {
        let attention = Self.state(.paystack, "attention") { $0.billingIssueDetectedAt = Self.now.addingTimeInterval(-3600) }
        #expect(!Self.access(attention).isActive)
        #expect(Self.access(attention, AccessPolicy(attentionGrace: 86_400, testDeployment: true)).isActive)
    }

    @Test(arguments: ["complete", "completed", "cancelled", "unknown", "something_new"])
    func paystackEndedStatusesHaveNoAccess(status: String) {
        #expect(!Self.access(Self.state(.paystack, status)).isActive)
    }

    // MARK: - Access is time-bounded

    /// A status that says the provider charges at a date, and where that date is stored.
    struct Renewing: Sendable, CustomTestStringConvertible {
        let provider: Provider
        let status: String
        let trial: Bool
        let setEnd: @Sendable (inout SubscriptionState, Date) -> Void
        var testDescription: String { "\(provider.rawValue) \(status)\(trial ? " (trial)" : "")" }

        static let all: [Renewing] = [
            Renewing(provider: .lemonsqueezy, status: "on_trial", trial: true) { $0.trialEndsAt = $1 },
            // No trial end stored: the renewal date is the trial's end.
            Renewing(provider: .lemonsqueezy, status: "on_trial", trial: true) { $0.renewsAt = $1 },
            Renewing(provider: .lemonsqueezy, status: "active", trial: false) { $0.renewsAt = $1 },
            Renewing(provider: .lemonsqueezy, status: "past_due", trial: false) {
                $0.renewsAt = $1
                $0.billingIssueDetectedAt = $1
            },
            Renewing(provider: .lemonsqueezy, status: "paused", trial: false) {
                $0.pauseMode = "free"
                $0.pauseResumesAt = $1
            },
            Renewing(provider: .paystack, status: "active", trial: false) { $0.renewsAt = $1 },
        ]

        func state(endingAt end: Date) -> SubscriptionState {
            AccessRulesTests.state(provider, status) {
                $0.renewsAt = nil
                setEnd(&$0, end)
            }
        }
    }

    @Test(arguments: Renewing.all)
    func aRenewingStatusPastItsPeriodEndGrantsWithinTheRenewalGraceOnly(_ c: Renewing) {
        let grace = AccessPolicy.defaultRenewalGrace
        let day: TimeInterval = 86_400

        let ahead = Self.access(c.state(endingAt: Self.now.addingTimeInterval(day)))
        #expect(ahead.isActive && ahead.willRenew && ahead.expiresAt == Self.now.addingTimeInterval(day))
        #expect(ahead.periodType == (c.trial ? .trial : .normal))

        // The period ended a day ago and no news came: the provider may still
        // be charging or retrying; access holds, the end is not hidden.
        let justPast = Self.now.addingTimeInterval(-day)
        let inGrace = Self.access(c.state(endingAt: justPast))
        #expect(inGrace.isActive && inGrace.willRenew && inGrace.expiresAt == justPast)
        #expect(inGrace.periodType == (c.trial ? .trial : .normal))

        let lastMoment = Self.now.addingTimeInterval(-grace + 1)
        #expect(Self.access(c.state(endingAt: lastMoment)).isActive, "one second of grace left")

        // The grace is over: no access, nothing will renew, the end stays what it was.
        for end in [Self.now.addingTimeInterval(-grace), Self.now.addingTimeInterval(-grace - day), Self.now.addingTimeInterval(-2.5 * 365 * day)] {
            let over = Self.access(c.state(endingAt: end))
            #expect(!over.isActive && !over.willRenew && over.expiresAt == end, "ended \(Self.now.timeIntervalSince(end) / day) days ago")
        }

        // The grace is the deployment's: none at all ends access at the period end.
        let noGrace = AccessPolicy(renewalGrace: 0, testDeployment: true)
        #expect(Self.access(c.state(endingAt: Self.now.addingTimeInterval(1)), noGrace).isActive)
        #expect(!Self.access(c.state(endingAt: Self.now), noGrace).isActive)
        #expect(!Self.access(c.state(endingAt: Self.now.addingTimeInterval(-1)), noGrace).isActive)
        let week = AccessPolicy(renewalGrace: 7 * day, testDeployment: true)
        #expect(Self.access(c.state(endingAt: Self.now.addingTimeInterval(-6 * day)), week).isActive)
        #expect(!Self.access(c.state(endingAt: Self.now.addingTimeInterval(-8 * day)), week).isActive)
    }

    @Test(arguments: Renewing.all)
    func aRenewingStatusPastItsPeriodEndIsOverdueAndNoneBefore(_ c: Renewing) {
        let past = Self.now.addingTimeInterval(-60)
        #expect(AccessRules.overduePeriodEnd(c.state(endingAt: past), at: Self.now) == past)
        #expect(AccessRules.overduePeriodEnd(c.state(endingAt: Self.now), at: Self.now) == Self.now)
        #expect(AccessRules.overduePeriodEnd(c.state(endingAt: Self.now.addingTimeInterval(60)), at: Self.now) == nil)
        let long = Self.now.addingTimeInterval(-900 * 86_400)
        #expect(AccessRules.overduePeriodEnd(c.state(endingAt: long), at: Self.now) == long, "overdue however long ago")
    }

    /// The issue's case: a Lemon Squeezy subscription the provider calls
    /// `active` whose `renews_at` passed two and a half years ago.
    @Test func anActiveSubscriptionWhoseRenewalPassedYearsAgoGrantsNothing() {
        let renewsAt = Self.now.addingTimeInterval(-2.5 * 365 * 86_400)
        let a = Self.access(Self.state(.lemonsqueezy, "active") { $0.renewsAt = renewsAt })
        #expect(!a.isActive && !a.willRenew && a.expiresAt == renewsAt)
    }

    @Test func aRenewingStatusWithoutAKnownEndStaysOpen() {
        for s in [
            Self.state(.lemonsqueezy, "active") { $0.renewsAt = nil },
            Self.state(.paystack, "active") { $0.renewsAt = nil },
            Self.state(.lemonsqueezy, "paused") {
                $0.pauseMode = "free"
                $0.pauseResumesAt = nil
            },
        ] {
            let a = Self.access(s)
            #expect(a.isActive && a.expiresAt == nil, "\(s.provider) \(s.status)")
            #expect(AccessRules.overduePeriodEnd(s, at: Self.now) == nil)
        }
    }

    @Test func statusesBoundedByTheirOwnEndGetNoRenewalGrace() {
        let yesterday = Self.now.addingTimeInterval(-86_400)
        let cancelled = Self.state(.lemonsqueezy, "cancelled") {
            $0.cancelAtPeriodEnd = true
            $0.renewsAt = yesterday
            $0.endsAt = yesterday
        }
        let nonRenewing = Self.state(.paystack, "non-renewing") {
            $0.cancelAtPeriodEnd = true
            $0.renewsAt = yesterday
        }
        for s in [cancelled, nonRenewing] {
            let a = Self.access(s)
            #expect(!a.isActive && !a.willRenew && a.expiresAt == yesterday, "\(s.status)")
            #expect(AccessRules.overduePeriodEnd(s, at: Self.now) == nil, "\(s.status) expects no renewal")
        }
        // `unpaid` and `attention` count their own grace from the failure, not from the period end.
        let unpaid = Self.state(.lemonsqueezy, "unpaid") {
            $0.renewsAt = Self.now.addingTimeInterval(-40 * 86_400)
            $0.billingIssueDetectedAt = Self.now.addingTimeInterval(-86_400)
        }
        #expect(Self.access(unpaid, AccessPolicy(unpaidGrace: 2 * 86_400, testDeployment: true)).isActive)
        #expect(!Self.access(unpaid).isActive)
        #expect(AccessRules.overduePeriodEnd(unpaid, at: Self.now) == nil)
        let attention = Self.state(.paystack, "attention") {
            $0.renewsAt = Self.now.addingTimeInterval(-40 * 86_400)
            $0.billingIssueDetectedAt = Self.now.addingTimeInterval(-86_400)
        }
        let graced = Self.access(attention, AccessPolicy(attentionGrace: 2 * 86_400, testDeployment: true))
        #expect(graced.isActive && graced.expiresAt == Self.now.addingTimeInterval(86_400))
        #expect(!Self.access(attention).isActive)
        #expect(AccessRules.overduePeriodEnd(attention, at: Self.now) == Self.now.addingTimeInterval(-40 * 86_400), "Paystack retries on that date")
        // Paused without charge (`void`): no access either way; past `resumes_at` it is overdue.
        let void = Self.state(.lemonsqueezy, "paused") {
            $0.pauseMode = "void"
            $0.pauseResumesAt = yesterday
        }
        #expect(!Self.access(void).isActive && AccessRules.overduePeriodEnd(void, at: Self.now) == yesterday)
        let expired = Self.state(.lemonsqueezy, "expired") { $0.renewsAt = yesterday }
        #expect(!Self.access(expired).isActive && AccessRules.overduePeriodEnd(expired, at: Self.now) == nil)
    }

    @Test func aRefundedPaymentRevokesTheSubscription() {
        let a = Self.access(Self.state(.lemonsqueezy, "active") { $0.refundedAt = Self.now.addingTimeInterval(-60) })
        #expect(!a.isActive)
    }

    @Test func testModePurchasesNeverGrantInALiveDeploymentNorLiveOnesInATestDeployment() {
        let live = AccessPolicy(testDeployment: false)
        let testPurchase = Self.state(.lemonsqueezy, "active") { $0.testMode = true }
        let livePurchase = Self.state(.lemonsqueezy, "active") { $0.testMode = false }
        #expect(!Self.access(testPurchase, live).isActive)
        #expect(Self.access(livePurchase, live).isActive)
        #expect(!Self.access(livePurchase).isActive)
        #expect(Self.access(testPurchase).isActive)

        var order = ProjectedOrder(provider: .lemonsqueezy, orderID: "9", status: "paid")
        order.testMode = true
        #expect(!AccessRules.access(order, duration: nil, policy: live, at: Self.now).isActive)
        #expect(AccessRules.access(order, duration: nil, policy: Self.test, at: Self.now).isActive)
    }

    @Test func oneTimePurchasesGrantForLifeOrForTheirDuration() {
        var order = ProjectedOrder(provider: .lemonsqueezy, orderID: "9", status: "paid")
        order.paidAt = Self.now.addingTimeInterval(-2 * 86_400)
        let lifetime = AccessRules.access(order, duration: nil, policy: Self.test, at: Self.now)
        #expect(lifetime.isActive && lifetime.expiresAt == nil)
        #expect(AccessRules.access(order, duration: 3 * 86_400, policy: Self.test, at: Self.now).isActive)
        #expect(!AccessRules.access(order, duration: 86_400, policy: Self.test, at: Self.now).isActive)

        order.subscriptionID = "5"
        #expect(!AccessRules.access(order, duration: nil, policy: Self.test, at: Self.now).isActive, "a subscription's first order is not a purchase")
        order.subscriptionID = nil
        order.status = "refunded"
        order.refundedAt = Self.now
        #expect(!AccessRules.access(order, duration: nil, policy: Self.test, at: Self.now).isActive)
    }
}
