import BillingModel
import Foundation
import HTTPClient
import Providers
import Testing

/// `previewPlanChange` on Stripe: the subscription is read, then
/// `POST /v1/invoices/create_preview` asked what the change would invoice;
/// lines within the current period are charged now, the rest at the renewal.
extension StripeClientTests {
    static let periodEnd = Date(timeIntervalSince1970: 1_752_592_000)

    static func previewInvoice(_ lines: [(amount: Int, start: Int, end: Int)]) -> String {
        let data = lines.map { #"{"object":"line_item","amount":\#($0.amount),"period":{"start":\#($0.start),"end":\#($0.end)}}"# }
        return
            #"{"object":"invoice","currency":"usd","amount_due":0,"lines":{"object":"list","has_more":false,"data":[\#(data.joined(separator: ","))]}}"#
    }

    static func previewRequest(
        _ effective: PlanChange.Effective = .now, _ proration: PlanChange.Proration = .prorate, price: Int64 = 1000
    ) -> PlanChangePreviewRequest {
        PlanChangePreviewRequest(
            subscriptionID: "sub_1", change: PlanChange(variantID: "price_Y", effective: effective, proration: proration),
            newPlan: CatalogItem(provider: .stripe, productID: "prod_P", variantID: "price_Y", name: "Y", price: price, currency: "usd"),
            currentPlan: nil, periodEnd: nil)
    }

    func previewClient(_ invoice: String, schedule: Bool = false) -> (StripeClient, FakeStripeTransport) {
        client { request throws(ProviderError) in
            switch (request.method, request.path) {
            case (.get, "/v1/subscriptions/sub_1"):
                let subscription = Self.subscription("sub_1")
                return schedule
                    ? subscription.replacingOccurrences(of: #""latest_invoice":null"#, with: #""latest_invoice":null,"schedule":"sub_sched_9""#)
                    : subscription
            case (.post, "/v1/invoices/create_preview"): return invoice
            default: throw FakeStripeTransport.missing(request)
            }
        }
    }

    @Test func aProratedPreviewAsksForTheChangeAsTheChangeWouldMakeIt() async throws {
        // A day into a 31-day month: 483 credited, 967 for the rest at the new price.
        let (client, transport) = previewClient(Self.previewInvoice([(-483, 1_750_000_000, 1_752_592_000), (967, 1_750_000_000, 1_752_592_000)]))
        let preview = try await client.previewPlanChange(Self.previewRequest())
        #expect(preview == PlanChangePreview(currency: "USD", dueNow: 484, next: .init(amount: 1000, at: Self.periodEnd), exact: true))
        let requests = transport.requests
        #expect(requests.map(\.path) == ["/v1/subscriptions/sub_1", "/v1/invoices/create_preview"])
        #expect(requests.allSatisfy { $0.operation == "previewPlanChange" })
        #expect(
            form(requests[1]) == [
                "subscription": "sub_1", "subscription_details[items][0][id]": "si_1", "subscription_details[items][0][price]": "price_Y",
                "subscription_details[proration_behavior]": "always_invoice", "subscription_details[proration_date]": "1750000000",
            ])
    }

    @Test func withoutProrationNothingIsDueAndTheRenewalCarriesTheNewPrice() async throws {
        let (client, transport) = previewClient(Self.previewInvoice([(1000, 1_752_592_000, 1_755_270_400)]))
        let preview = try await client.previewPlanChange(Self.previewRequest(.now, .none))
        #expect(preview == PlanChangePreview(currency: "USD", dueNow: 0, next: .init(amount: 1000, at: Self.periodEnd), exact: true))
        let sent = form(transport.requests[1])
        #expect(sent["subscription_details[proration_behavior]"] == "none" && sent["subscription_details[proration_date]"] == nil)
    }

    @Test func anIntervalChangeIsChargedNowAndRenewsAtTheNewPeriodsEnd() async throws {
        let yearEnd = 1_781_536_000
        let (client, _) = previewClient(Self.previewInvoice([(-483, 1_750_000_000, 1_752_592_000), (12000, 1_750_000_000, yearEnd)]))
        let preview = try await client.previewPlanChange(Self.previewRequest(price: 12000))
        #expect(preview.dueNow == 11517 && preview.exact)
        #expect(preview.next == .init(amount: 12000, at: Date(timeIntervalSince1970: TimeInterval(yearEnd))))
    }

    @Test func aDowngradesCreditIsTakenOffTheNextCharge() async throws {
        let (client, _) = previewClient(Self.previewInvoice([(-900, 1_750_000_000, 1_752_592_000), (450, 1_750_000_000, 1_752_592_000)]))
        let preview = try await client.previewPlanChange(Self.previewRequest(price: 500))
        #expect(preview.dueNow == 0 && preview.next == .init(amount: 50, at: Self.periodEnd))
    }

    @Test func atPeriodEndNothingIsDueAndNoPreviewIsAsked() async throws {
        let (client, transport) = previewClient("{}")
        let preview = try await client.previewPlanChange(Self.previewRequest(.periodEnd))
        #expect(preview == PlanChangePreview(currency: "USD", dueNow: 0, next: .init(amount: 1000, at: Self.periodEnd), exact: true))
        #expect(transport.requests.map(\.path) == ["/v1/subscriptions/sub_1"])
    }

    @Test func aScheduledChangeOrAnUnreadableAnswerIsRefused() async throws {
        let (scheduled, _) = previewClient(Self.previewInvoice([]), schedule: true)
        do throws(ProviderError) {
            _ = try await scheduled.previewPlanChange(Self.previewRequest())
            Issue.record("a preview beside a scheduled change was answered")
        } catch {
            #expect(error.code == "plan_change_pending")
        }
        let (garbled, _) = previewClient(#"{"object":"invoice","currency":"usd","lines":{"data":[{"amount":5}]}}"#)
        do throws(ProviderError) {
            _ = try await garbled.previewPlanChange(Self.previewRequest())
            Issue.record("a line without a period was read")
        } catch {
            #expect(error.kind == .decoding)
        }
        let (client, transport) = previewClient("{}")
        var bad = Self.previewRequest()
        bad.change.variantID = "price_Y/../x"
        await #expect(throws: ProviderError.self) { try await client.previewPlanChange(bad) }
        #expect(transport.requests.isEmpty)
    }
}
