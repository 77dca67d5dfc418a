import Basics
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
    /// - Parameter testDeployment: whether the deployment sells in test mode (`STOREFRONT_MODE`).
    public static func fromEnvironment(_ reader: inout ConfigReader, testDeployment: Bool) -> EntitlementResolver {
        var resolver = EntitlementResolver(
            policy: AccessPolicy(
                unpaidGrace: reader.duration("ENTITLEMENT_UNPAID_GRACE", default: .zero).inSeconds,
                attentionGrace: reader.duration("ENTITLEMENT_ATTENTION_GRACE", default: .zero).inSeconds,
                renewalGrace: reader.duration("ENTITLEMENT_RENEWAL_GRACE", default: .seconds(AccessPolicy.defaultRenewalGrace)).inSeconds,
                partialRefund: reader.enumeration("ENTITLEMENT_PARTIAL_REFUND", default: AccessPolicy.PartialRefund.keep),
                testDeployment: testDeployment))
        if let path = reader.string("ENTITLEMENTS_FILE") {
            do {
                resolver.configuration = try EntitlementsConfiguration.load(path: path)
            } catch {
                for problem in error.problems { reader.report("ENTITLEMENTS_FILE", problem) }
            }
        }
        return resolver
    }
}
