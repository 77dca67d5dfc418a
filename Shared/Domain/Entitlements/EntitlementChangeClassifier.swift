import Foundation
import BillingModel

/// Names a change of one user's entitlements (``EntitlementChange/Kind``)
/// from the list before and after it: the rule the outbox and its tests
/// share, kept pure so it is checked without a database.
///
/// Each entitlement identifier is judged on its own; the change is named
/// after the one that matters most (the order of ``EntitlementChange/Kind``'s
/// cases): losing access outranks gaining it, which outranks news about
/// access that continues.
public enum EntitlementChangeClassifier {
    /// The kind of the change from `before` to `after`, or nil when there is
    /// nothing to announce: the lists are equal, or only facts of an entitlement
    /// that grants nothing before and after changed (its dates, say) without a
    /// refund.
    /// - Parameter transferred: a purchase of this user changed owner in the
    ///   change (a claim, or stronger ownership evidence): then any difference
    ///   is ``EntitlementChange/Kind/transferred``.
    public static func classify(before: [EntitlementInfo], after: [EntitlementInfo], transferred: Bool = false) -> EntitlementChange.Kind? {
        guard before != after else { return nil }
        if transferred { return .transferred }
        let old = Dictionary(before.map { ($0.identifier, $0) }, uniquingKeysWith: { first, _ in first })
        let new = Dictionary(after.map { ($0.identifier, $0) }, uniquingKeysWith: { first, _ in first })
        let kinds = Set(old.keys).union(new.keys).compactMap { classify(old[$0], new[$0]) }
        // Kind's cases are declared most important first.
        return EntitlementChange.Kind.allCases.first(where: kinds.contains)
    }

    /// One entitlement, absent (nil) or present before and after.
    static func classify(_ before: EntitlementInfo?, _ after: EntitlementInfo?) -> EntitlementChange.Kind? {
        guard before != after else { return nil }
        let wasActive = before?.isActive ?? false, isActive = after?.isActive ?? false
        switch (wasActive, isActive) {
        case (false, true):
            return .granted
        case (true, false):
            return after?.refundedAt != nil ? .refunded : .revoked
        case (false, false):
            // No access either way: only money given back is news.
            return after?.refundedAt != nil && before?.refundedAt == nil ? .refunded : nil
        case (true, true):
            guard let before, let after else { return nil }
            if after.billingIssueDetectedAt != nil && before.billingIssueDetectedAt == nil { return .billingIssue }
            if after.disputeDetectedAt != nil && before.disputeDetectedAt == nil { return .billingIssue }
            if before.willRenew && !after.willRenew { return .expiring }
            return .renewed
        }
    }
}
