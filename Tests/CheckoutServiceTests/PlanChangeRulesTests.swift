import BillingModel
import Entitlements
import Foundation
import HTTPServer
import Providers
import Testing

@testable import CheckoutService

/// Which subscription a plan change applies to, and every refusal, made
/// before the provider is asked (docs/plan-changes.md, "Refusals").
@Suite struct PlanChangeRulesTests {
    static let configuration = try! EntitlementsConfiguration.parse(
        Array(
            #"""
            {"entitlements": {"premium": {"lemonsqueezy": {"products": ["2"]}, "stripe": {"products": ["prod_P"]}}},
             "product_groups": {
               "premium": {"lemonsqueezy": ["2", "3"], "stripe": ["price_M", "price_Y"]},
               "supporter": {"lemonsqueezy": ["9"]}}}
            """#.utf8))

    static func subscription(
        _ id: String, _ provider: Provider = .lemonsqueezy, variant: String = "2", status: String = "active", cancelled: Bool = false
    ) -> SubscriptionState {
        var state = SubscriptionState(provider: provider, subscriptionID: id)
        state.variantID = variant
        state.status = status
        state.cancelAtPeriodEnd = cancelled
        return state
    }

    func choose(
        _ subscriptions: [SubscriptionState], _ target: String, effective: PlanChange.Effective = .now, code: String? = nil,
        timings: Set<PlanChange.Effective> = [.now], configuration: EntitlementsConfiguration? = Self.configuration
    ) -> Result<String, HTTPError> {
        do throws(HTTPError) {
            let chosen = try PlanChangeRules.subscription(
                toChange: subscriptions, to: CatalogID(target)!, effective: effective, code: code, configuration: configuration, timings: timings)
            return .success(chosen.subscriptionID)
        } catch {
            return .failure(error)
        }
    }

    func refusal(_ result: Result<String, HTTPError>) -> String? {
        if case .failure(let error) = result { return "\(error.status.code) \(error.code)" }
        return nil
    }

    @Test func theOwnersLiveSubscriptionOfTheGroupIsChanged() throws {
        let subscriptions = [Self.subscription("9", variant: "9"), Self.subscription("1", variant: "2", status: "expired"), Self.subscription("5")]
        #expect(try choose(subscriptions, "ls_3").get() == "5")
        #expect(try choose(subscriptions, "ls_3", code: "5").get() == "5")
        #expect(try choose([Self.subscription("sub_1", .stripe, variant: "price_M")], "st_price_Y").get() == "sub_1")
    }

    @Test func everyRefusalHasItsCode() {
        let live = [Self.subscription("5")]
        #expect(refusal(choose(live, "ls_7")) == "422 plan_not_in_product_group")
        #expect(refusal(choose(live, "ls_3", configuration: nil)) == "422 plan_not_in_product_group")
        #expect(refusal(choose([], "ls_3")) == "404 subscription_not_found")
        #expect(refusal(choose(live, "ls_3", code: "6")) == "404 subscription_not_found")
        #expect(refusal(choose(live, "st_price_Y")) == "404 subscription_not_found", "another provider's plan is no plan of this subscription")
        #expect(refusal(choose([Self.subscription("9", variant: "9")], "ls_3")) == "422 plan_change_other_group")
        #expect(refusal(choose([Self.subscription("5", cancelled: true)], "ls_3")) == "409 subscription_not_active")
        #expect(refusal(choose([Self.subscription("5", status: "expired")], "ls_3")) == "409 subscription_not_active")
        #expect(refusal(choose(live, "ls_2")) == "422 plan_unchanged")
        var scheduled = Self.subscription("5")
        scheduled.pendingVariantID = "3"
        #expect(refusal(choose([scheduled], "ls_3")) == "409 plan_change_pending")
        #expect(refusal(choose(live, "ls_3", effective: .periodEnd)) == "422 plan_change_timing_unsupported")
        #expect(refusal(choose(live, "ls_3", timings: [])) == "422 plan_change_timing_unsupported")
    }

    /// A Paystack change ends the subscription (no longer live) and makes a
    /// new one (live): the pending change on the first still refuses a second.
    @Test func aChangePendingOnAnotherSubscriptionOfTheGroupRefusesASecond() throws {
        var ending = Self.subscription("SUB_old", variant: "2", status: "non-renewing", cancelled: true)
        ending.pendingVariantID = "3"
        let successor = Self.subscription("SUB_new", variant: "3")
        #expect(refusal(choose([successor, ending], "ls_2", effective: .periodEnd, timings: [.periodEnd])) == "409 plan_change_pending")
        ending.pendingVariantID = nil
        #expect(try choose([successor, ending], "ls_2", effective: .periodEnd, timings: [.periodEnd]).get() == "SUB_new")
    }

    @Test func theBodyIsCheckedBeforeAnything() throws {
        func checked(_ json: String) -> String? {
            do throws(HTTPError) {
                let body = try! JSONDecoder().decode(PlanChangeRequest.self, from: Data(json.utf8))
                _ = try body.checked()
                return nil
            } catch {
                return "\(error.status.code) \(error.code)"
            }
        }
        #expect(checked(#"{"variantId":"ls_3"}"#) == nil)
        #expect(checked(#"{"variantId":"ls_3","effective":"period_end","proration":"none"}"#) == nil)
        #expect(checked(#"{"variantId":""}"#)?.hasPrefix("400") == true)
        #expect(checked(#"{"variantId":"nope"}"#)?.hasPrefix("400") == true)
        #expect(checked(#"{"variantId":"ls_3","effective":"later"}"#) == "400 invalid_effective")
        #expect(checked(#"{"variantId":"ls_3","proration":"half"}"#) == "400 invalid_proration")
    }
}
