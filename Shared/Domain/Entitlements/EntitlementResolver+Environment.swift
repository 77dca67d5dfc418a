import Timing
import ServiceSettings
import Foundation
import ServiceRuntime

extension EntitlementResolver {
    /// Reads `ENTITLEMENTS_FILE` (optional path of the JSON file
    /// ``EntitlementsConfiguration`` describes; every problem in it is
    /// reported), `ENTITLEMENT_UNPAID_GRACE` and `ENTITLEMENT_ATTENTION_GRACE`
    /// (durations, default 0: no access once the provider gave up or the
    /// charge failed), `ENTITLEMENT_RENEWAL_GRACE` (a duration, default
    /// ``AccessPolicy/defaultRenewalGrace``, 16 days: how long a renewing
    /// subscription keeps access after its period end passed without news),
    /// and `ENTITLEMENT_PARTIAL_REFUND` (`keep` or `revoke`).
    ///
    /// `ENTITLEMENTS_FILE_OPTIONAL=true` lets the file be absent (a default
    /// location the operator may fill, as compose's `/etc/storefront/entitlements.json`):
    /// then each product is its own entitlement, as without `ENTITLEMENTS_FILE`.
    /// A file that is there is read and checked all the same.
    /// - Parameter testDeployment: whether the deployment sells in test mode (`STOREFRONT_MODE`).
    public static func fromEnvironment(_ reader: inout ConfigReader, testDeployment: Bool) -> EntitlementResolver {
        var resolver = EntitlementResolver(
            policy: AccessPolicy(
                unpaidGrace: reader.duration("ENTITLEMENT_UNPAID_GRACE", default: .zero).inSeconds,
                attentionGrace: reader.duration("ENTITLEMENT_ATTENTION_GRACE", default: .zero).inSeconds,
                renewalGrace: reader.duration("ENTITLEMENT_RENEWAL_GRACE", default: .seconds(AccessPolicy.defaultRenewalGrace)).inSeconds,
                partialRefund: reader.enumeration("ENTITLEMENT_PARTIAL_REFUND", default: AccessPolicy.PartialRefund.keep),
                testDeployment: testDeployment))
        let optional = reader.bool("ENTITLEMENTS_FILE_OPTIONAL", default: false)
        if let path = reader.string("ENTITLEMENTS_FILE"), !optional || FileManager.default.fileExists(atPath: path) {
            do {
                resolver.configuration = try EntitlementsConfiguration.load(path: path)
            } catch {
                for problem in error.problems { reader.report("ENTITLEMENTS_FILE", problem) }
            }
        }
        return resolver
    }
}
