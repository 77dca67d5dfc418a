import Foundation
import BillingModel

/// Folds every stored event of one subscription into its state.
///
/// Events are applied in a total order: the ordering timestamp (the
/// provider's own, or for Paystack state changes and Storefront's own
/// fetches, when Storefront received them), then the kind's precedence (a
/// subscription is created before it is updated, and cancelled or expired
/// after), then the dedup key. Storefront's own observations (snapshots,
/// commands' answers) count at the whole second they were made in, before
/// the provider's events of that second (``position(_:)`` says why). A later event overwrites the fields it carries
/// and leaves the others. Because the projector re-folds from the
/// deduplicated event log, a duplicate changes nothing, an old event arriving
/// late is sorted before newer ones and cannot move the state back, and any
/// delivery order of the same events gives the same row.
///
/// Ownership is not decided here: see ``SubscriptionState/appUserID``.
public enum SubscriptionFold {
    /// One logged event with the key that deduplicated it.
    public struct LoggedEvent: Sendable {
        public var dedupKey: String
        public var event: BillingEvent
        public init(dedupKey: String, event: BillingEvent) {
            self.dedupKey = dedupKey
            self.event = event
        }
    }

    public static func fold(provider: Provider, subscriptionID: String, events: [LoggedEvent]) -> SubscriptionState {
        var state = SubscriptionState(provider: provider, subscriptionID: subscriptionID)
        let payments = MoneyBack.Payments(events)
        // Unknown kinds stay in the log for audits but never change state.
        for logged in events.sorted(by: precedes) where !logged.event.kind.isUnknown {
            apply(logged, payments: payments, to: &state)
        }
        return state
    }

    /// The documented state precedence used when provider timestamps tie or are missing.
    static func precedence(_ kind: BillingEventKind) -> Int {
        switch kind {
        case .orderCreated: 0
        case .subscriptionCreated: 1
        case .invoiceCreated, .invoiceUpdated, .paymentSucceeded, .paymentRecovered: 2
        case .subscriptionUpdated, .subscriptionResumed, .subscriptionUnpaused, .subscriptionObserved: 3
        case .paymentFailed, .subscriptionPaused, .paymentRefunded, .orderRefunded, .refundProcessed: 4
        case .disputeCreated, .disputeReminder, .disputeResolved: 4
        case .subscriptionNotRenewing, .subscriptionCancelled: 5
        case .subscriptionDisabled, .subscriptionExpired: 6
        default: 2
        }
    }

    /// Where an event stands in the total order: time, then precedence, then key.
    public struct Position: Comparable, Sendable, Hashable, Codable {
        public var at: Date
        public var rank: Int
        public var key: String

        public init(at: Date, rank: Int, key: String) {
            self.at = at
            self.rank = rank
            self.key = key
        }

        public static func < (a: Self, b: Self) -> Bool { (a.at, a.rank, a.key) < (b.at, b.rank, b.key) }
    }

    static func position(_ logged: LoggedEvent) -> Position {
        let at = logged.event.orderingTimestamp ?? .distantPast
        let rank = precedence(logged.event.kind)
        guard logged.event.isStorefrontObservation, logged.event.provider.traits.eventTimesAreWholeSeconds else {
            return Position(at: at, rank: rank, key: logged.dedupKey)
        }
        // Storefront's observations (a snapshot's fetch, a command's answer)
        // carry its clock, in milliseconds; some providers' own event times
        // are whole seconds (Stripe's `created` is the second a change
        // happened in, floored; ``ProviderTraits/eventTimesAreWholeSeconds``). An observation made in the same second as a
        // change may come before it, yet its instant is after the change's
        // floored time: as such it would undo the change until the next
        // event (a renewal onto the annual plan seen as annual → monthly →
        // annual, from the change's request 0.1 s before). So an observation
        // is placed at its second, before every provider event of that
        // second, and in its milliseconds' order among the observations of
        // that second; one made later in the second agrees with the change.
        let seconds = at.timeIntervalSince1970.rounded(.down)
        let millisecond = min(max(Int((at.timeIntervalSince1970 - seconds) * 1000), 0), 999)
        return Position(at: Date(timeIntervalSince1970: seconds), rank: observationRankBase + millisecond * 10 + rank, key: logged.dedupKey)
    }

    /// Observation ranks (millisecond × 10 + precedence, 0–9,996) are moved
    /// below every provider event's rank (``precedence(_:)``, 0–6).
    static let observationRankBase = -10_000

    static func precedes(_ a: LoggedEvent, _ b: LoggedEvent) -> Bool { position(a) < position(b) }

    /// Applies `events` to a state folded earlier, when every one of them
    /// comes after the last event that state applied: the same result as
    /// folding the whole log again, without reading it. Nil when an event
    /// belongs before (arrived out of order) or the state's position is
    /// unknown: then fold the log.
    public static func extend(_ state: SubscriptionState, with events: [LoggedEvent]) -> SubscriptionState? {
        let known = events.filter { !$0.event.kind.isUnknown }.sorted(by: precedes)
        guard let first = known.first else { return state }
        guard let applied = state.foldPosition, applied < position(first) else { return nil }
        var state = state
        let payments = MoneyBack.Payments(known)
        for logged in known { apply(logged, payments: payments, to: &state) }
        return state
    }

    /// Kinds whose payload is the subscription itself (not a charge or invoice).
    public static let subscriptionObjectKinds: Set<BillingEventKind> = [
        .subscriptionCreated, .subscriptionUpdated, .subscriptionCancelled, .subscriptionResumed, .subscriptionExpired,
        .subscriptionPaused, .subscriptionUnpaused, .subscriptionNotRenewing, .subscriptionDisabled, .subscriptionObserved,
    ]

    static func apply(_ logged: LoggedEvent, payments: MoneyBack.Payments, to state: inout SubscriptionState) {
        let event = logged.event
        overwrite(&state.customerID, event.customerID)
        overwrite(&state.customerEmail, event.customerEmail)
        overwrite(&state.emailToken, event.emailToken)
        overwrite(&state.cardBrand, event.cardBrand)
        overwrite(&state.cardLastFour, event.cardLastFour)
        if event.customerPortalURL != nil || event.updatePaymentMethodURL != nil {
            overwrite(&state.customerPortalURL, event.customerPortalURL)
            overwrite(&state.updatePaymentMethodURL, event.updatePaymentMethodURL)
            state.portalURLsSeenAt = event.orderingTimestamp
        }
        overwrite(&state.testMode, event.testMode)
        if let timestamp = event.orderingTimestamp { state.sourceUpdatedAt = max(state.sourceUpdatedAt ?? timestamp, timestamp) }
        state.lastEventKey = logged.dedupKey
        state.foldPosition = position(logged)
        if subscriptionObjectKinds.contains(event.kind) {
            overwrite(&state.authorizationCode, event.authorizationCode)
            if let created = event.createdAt { state.originalPurchaseAt = min(state.originalPurchaseAt ?? created, created) }
        }

        // Each provider's own step, in its folder (Shared/Domain/Providers/<Provider>/Entitlements).
        event.provider.entitlementRules.apply(event, to: &state)
        MoneyBack.apply(logged, payments: payments, to: &state)
        trackLifecycle(event, in: &state)
        trackPendingChange(event, in: &state)
    }

    /// A scheduled plan change, as Storefront observed it after asking: it
    /// stands until the subscription is on the new plan (done), or is
    /// cancelled or ends (void). Where the change itself ends the
    /// subscription (``ProviderTraits/planChangesEndTheSubscription``), the
    /// cancellation carries it and only the end clears it (done: the new
    /// subscription has taken over). A subscription a change created to
    /// start later keeps that date (``SubscriptionState/startsAt``).
    private static func trackPendingChange(_ event: BillingEvent, in state: inout SubscriptionState) {
        if event.kind == .subscriptionObserved, let pending = event.pendingVariantID {
            state.pendingVariantID = pending
            state.pendingChangeAt = event.pendingChangeAt
        }
        if event.kind == .subscriptionObserved, let startsAt = event.startsAt { state.startsAt = startsAt }
        guard let pending = state.pendingVariantID else { return }
        let phase = state.provider.phase(of: state.status)
        let cancelled = state.provider.traits.planChangesEndTheSubscription ? phase == .ended : state.cancelAtPeriodEnd || phase.isEndedOrEnding
        if state.variantID == pending || cancelled {
            state.pendingVariantID = nil
            state.pendingChangeAt = nil
        }
    }

    /// The RevenueCat-style dates: the newest payment, and when a cancellation
    /// or a billing issue was first seen (cleared when it no longer holds).
    private static func trackLifecycle(_ event: BillingEvent, in state: inout SubscriptionState) {
        let at = event.orderingTimestamp ?? event.createdAt
        switch event.kind {
        case .paymentSucceeded, .paymentRecovered:
            if let paid = event.paidAt ?? at { state.latestPurchaseAt = max(state.latestPurchaseAt ?? paid, paid) }
            state.billingIssueDetectedAt = nil
            // A new period is paid: an earlier refund no longer speaks for it.
            state.refundedAt = nil
            state.partiallyRefundedAt = nil
        case .paymentFailed:
            state.billingIssueDetectedAt = state.billingIssueDetectedAt ?? at
        default:
            break
        }
        let phase = state.provider.phase(of: state.status)
        if state.cancelAtPeriodEnd || phase.isEndedOrEnding {
            state.unsubscribeDetectedAt = state.unsubscribeDetectedAt ?? at
        } else if state.status != "unknown" {
            state.unsubscribeDetectedAt = nil
        }
        if phase.isBillingIssue {
            state.billingIssueDetectedAt = state.billingIssueDetectedAt ?? at
        } else if phase.isInGoodStanding, event.kind != .paymentFailed {
            state.billingIssueDetectedAt = nil
        }
    }

    static func overwrite<T>(_ field: inout T?, _ value: T?) {
        if let value { field = value }
    }

    static func overwrite(_ field: inout String, _ value: String?) {
        if let value, !value.isEmpty { field = value }
    }
}
