import Foundation
import BillingModel

/// A promotional grant as the projector recorded it (`entitlement_grants`):
/// an entitlement given without a purchase, from ``startsAt`` until
/// ``expiresAt`` or until it was revoked.
public struct ProjectedGrant: Sendable, Hashable {
    public var grantID: String
    public var appUserID: String
    /// The entitlement's identifier (an entitlements-file name, or a catalog id without one).
    public var entitlement: String
    public var startsAt: Date
    public var expiresAt: Date
    /// When a revocation ended it; nil while it runs to ``expiresAt``.
    public var revokedAt: Date?

    public init(grantID: String, appUserID: String, entitlement: String, startsAt: Date, expiresAt: Date, revokedAt: Date? = nil) {
        self.grantID = grantID
        self.appUserID = appUserID
        self.entitlement = entitlement
        self.startsAt = startsAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
    }

    /// When access ends: the grant's end, or its revocation when earlier.
    public var endsAt: Date { min(expiresAt, revokedAt ?? expiresAt) }

    /// Whether it grants at `now`: started and not yet ended.
    public func isActive(at now: Date) -> Bool { startsAt <= now && now < endsAt }

    /// The entitlement answer for it (`store: "promotional"`): never renews,
    /// never sandbox unless the deployment is a test one.
    public func info(at now: Date, testDeployment: Bool) -> EntitlementInfo {
        var info = EntitlementInfo(
            identifier: entitlement, isActive: isActive(at: now), expiresAt: endsAt, willRenew: false, periodType: .normal,
            productID: EntitlementInfo.promotionalStore, provider: nil, source: .grant, latestPurchaseAt: startsAt,
            originalPurchaseAt: startsAt, unsubscribeDetectedAt: nil, billingIssueDetectedAt: nil, sandbox: testDeployment)
        info.grantID = grantID
        return info
    }
}
