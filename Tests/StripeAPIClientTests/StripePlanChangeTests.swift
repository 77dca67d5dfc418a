import BillingModel
import Foundation
import HTTPClient
import Providers
import Testing

/// `changePlan` on Stripe: the subscription's item is read, then updated to
/// the new price with the `proration_behavior` the proration asks for.
extension StripeClientTests {
    @Test func aPlanChangeUpdatesTheItemsPriceWithTheProrationAsked() async throws {
        let (client, transport) = client { request throws(ProviderError) in
            guard request.path == "/v1/subscriptions/sub_1" else { throw FakeStripeTransport.missing(request) }
            guard request.method == .post else { return Self.subscription("sub_1") }
            return Self.subscription("sub_1").replacingOccurrences(of: #""id":"price_M""#, with: #""id":"price_Y""#)
        }
        #expect(client.planChangeTimings == [.now, .periodEnd])
        let changed = try await client.changePlan(subscriptionID: "sub_1", PlanChange(variantID: "price_Y", effective: .now, proration: .prorate))
        #expect(changed.variantID == "price_Y" && changed.productID == "prod_P")
        _ = try await client.changePlan(subscriptionID: "sub_1", PlanChange(variantID: "price_Y", effective: .now, proration: .none))

        let requests = transport.requests
        #expect(requests.map(\.method) == [.get, .post, .get, .post])
        #expect(requests.allSatisfy { $0.operation == "changePlan" })
        #expect(form(requests[1]) == ["items[0][id]": "si_1", "items[0][price]": "price_Y", "proration_behavior": "always_invoice"])
        #expect(form(requests[3])["proration_behavior"] == "none")
        let keys = requests.compactMap(\.idempotencyKey)
        #expect(keys.count == 2 && Set(keys).count == 2, "each change is its own intent; its retries share its key")
    }

    @Test func aChangeAtPeriodEndIsAScheduleOfTwoPhases() async throws {
        let (client, transport) = client { request throws(ProviderError) in
            switch (request.method, request.path) {
            case (.get, "/v1/subscriptions/sub_1"): return Self.subscription("sub_1")
            case (.post, "/v1/subscription_schedules"): return #"{"id":"sub_sched_1","object":"subscription_schedule"}"#
            case (.post, "/v1/subscription_schedules/sub_sched_1"): return #"{"id":"sub_sched_1","object":"subscription_schedule"}"#
            default: throw FakeStripeTransport.missing(request)
            }
        }
        let scheduled = try await client.changePlan(
            subscriptionID: "sub_1", PlanChange(variantID: "price_Y", effective: .periodEnd, proration: .prorate))
        #expect(scheduled.variantID == "price_M", "the current plan stays until the period ends")
        #expect(scheduled.pendingVariantID == "price_Y" && scheduled.pendingChangeAt == Date(timeIntervalSince1970: 1_752_592_000))
        let requests = transport.requests
        #expect(requests.map(\.path) == ["/v1/subscriptions/sub_1", "/v1/subscription_schedules", "/v1/subscription_schedules/sub_sched_1"])
        #expect(form(requests[1]) == ["from_subscription": "sub_1"])
        #expect(
            form(requests[2]) == [
                "end_behavior": "release", "phases[0][items][0][price]": "price_M", "phases[0][items][0][quantity]": "1",
                "phases[0][start_date]": "1749913600", "phases[0][end_date]": "1752592000", "phases[1][items][0][price]": "price_Y",
                "phases[1][items][0][quantity]": "1",
            ])
    }

    @Test func aSubscriptionWithAScheduleHasAChangePending() async throws {
        let (client, _) = client { request throws(ProviderError) in
            Self.subscription("sub_1").replacingOccurrences(of: #""latest_invoice":null"#, with: #""latest_invoice":null,"schedule":"sub_sched_9""#)
        }
        do throws(ProviderError) {
            _ = try await client.changePlan(subscriptionID: "sub_1", PlanChange(variantID: "price_Y", effective: .periodEnd, proration: .none))
            Issue.record("a second change was accepted")
        } catch {
            #expect(error.code == "plan_change_pending" && error.kind == .validation)
        }
    }

    @Test func aMalformedPlanChangeIsRefusedBeforeAnyCall() async throws {
        let (client, transport) = client { request throws(ProviderError) in throw FakeStripeTransport.missing(request) }
        await #expect(throws: ProviderError.self) {
            try await client.changePlan(subscriptionID: "sub_1", PlanChange(variantID: "price_Y/../x", effective: .now, proration: .prorate))
        }
        #expect(transport.requests.isEmpty)
    }
}
