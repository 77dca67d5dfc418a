import Foundation

/// Whether to show the app's content or its paywall for one entitlement:
/// the decision behind SwiftUI's `.storefrontPaywall(entitlement:client:paywall:)`,
/// in plain Swift for UIKit apps and tests.
///
/// ```swift
/// for await snapshot in await storefront.entitlementSnapshots() {
///     switch PaywallGate.decision(for: "premium", snapshot: snapshot) {
///     case .loading: showSpinner()
///     case .unlocked: showContent()
///     case .paywall: showPaywall()
///     }
/// }
/// ```
public enum PaywallGate {
    /// What to show.
    public enum Decision: Hashable, Sendable {
        /// Nothing is known yet (the first answer is on its way): show neither,
        /// so a paying user never sees the paywall flash at launch.
        case loading
        /// The entitlement is active: show the content.
        case unlocked
        /// The entitlement is not active, or nothing could be learned (signed
        /// out, or offline with nothing cached): show the paywall.
        case paywall
    }

    /// The decision for `entitlement` given the latest snapshot (nil while
    /// none has arrived). A cached snapshot counts as much as the server's:
    /// offline, a paying user keeps the content — until the entitlement's
    /// `expires_at` passes (see ``EntitlementsSnapshot``, "Cached answers").
    public static func decision(for entitlement: String, snapshot: EntitlementsSnapshot?) -> Decision {
        guard let snapshot else { return .loading }
        return snapshot.isActive(entitlement) ? .unlocked : .paywall
    }
}
