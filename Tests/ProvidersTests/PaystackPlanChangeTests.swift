import Foundation
import BillingModel
import Providers
import HTTPClient
import JSONCodec
import SandboxKit
import SandboxServer
import Testing
@testable import Webhooks

/// `changePlan` against the in-process sandbox: Paystack has no plan change,
/// so a change at period end stops the subscription's renewal and creates
/// the new plan's subscription from that date for the same customer and card
/// (docs/plan-changes.md). Nothing is charged now, never twice later.
@Suite("Paystack plan change")
struct PaystackPlanChangeTests {
    static let monthly = "PLN_sbxpremmonth01", annual = "PLN_sbxpremannual1"

    /// A paid Premium Monthly subscription in the sandbox: its code.
    func subscribe(_ sandbox: LiveSandbox, _ client: PaystackClient, email: String) async throws -> String {
        let checkout = try await client.createCheckout(
            CheckoutRequest(
                variantID: Self.monthly, email: EmailAddress(email), appUserID: "user-ps-plan", checkoutID: UUID().uuidString,
                ownershipProof: "p"))
        let paid = try await sandbox.control("/checkouts/paystack/\(checkout.providerCheckoutID)/pay", ["email": email])
        return try #require(paid["subscription_code"]?.string)
    }

    func fetched(_ sandbox: LiveSandbox, _ code: String) async throws -> JSONCodec.JSONValue {
        try #require(await sandbox.rawGet("/paystack/subscription/\(code)", key: LiveSandbox.psKey)["data"])
    }

    @Test func monthlyToAnnualAtPeriodEndEndsTheOldAndStartsTheNewThen() async throws {
        try await LiveSandbox.with { sandbox in
            let client = sandbox.paystack()
            let code = try await subscribe(sandbox, client, email: "ps-plan-end@example.com")
            let before = try await fetched(sandbox, code)
            let periodEnd = try #require(before["next_payment_date"]?.date)
            await sandbox.server.app.settleDeliveries()
            let sentBefore = await sandbox.server.app.deliveries(provider: .paystack).count

            // `prorate` (the default) is ignored: nothing of the period is left to credit at its end.
            let changed = try await client.changePlan(
                subscriptionID: code, PlanChange(variantID: Self.annual, effective: .periodEnd, proration: .prorate))
            #expect(changed.id == code && changed.status == "non-renewing" && changed.cancelled)
            #expect(changed.variantID == Self.monthly && changed.endsAt == periodEnd && changed.renewsAt == nil)
            #expect(changed.pendingVariantID == Self.annual && changed.pendingChangeAt == periodEnd)
            let successor = try #require(changed.successor)
            #expect(successor.subscriptionID != code && successor.status == "active" && successor.startsAt == periodEnd)

            // Paystack's side: the old one will not renew; the new one is for the
            // same customer and card, on the annual plan, first charged at the period end.
            let old = try await fetched(sandbox, code)
            #expect(old["status"]?.string == "non-renewing")
            let new = try await fetched(sandbox, successor.subscriptionID)
            #expect(new["status"]?.string == "active" && new["plan", "plan_code"]?.string == Self.annual)
            #expect(new["next_payment_date"]?.date == periodEnd)
            #expect(new["customer", "customer_code"]?.string == before["customer", "customer_code"]?.string)
            #expect(new["authorization", "authorization_code"]?.string == before["authorization", "authorization_code"]?.string)

            // Nothing charged now: the old one's not_renew and the new one's create, no charge.
            await sandbox.server.app.settleDeliveries()
            let sent = await sandbox.server.app.deliveries(provider: .paystack).dropFirst(sentBefore).map(\.eventName)
            #expect(sent == ["subscription.not_renew", "subscription.create"], "\(sent)")

            // At the period end the new one takes its first (annual) charge and runs a year.
            _ = try await sandbox.control("/paystack/subscriptions/\(successor.subscriptionID)/renew")
            let renewed = try await fetched(sandbox, successor.subscriptionID)
            let next = try #require(renewed["next_payment_date"]?.date)
            #expect(next > periodEnd.addingTimeInterval(360 * 86_400))
            await sandbox.server.app.settleDeliveries()
            let charge = try #require(await sandbox.server.app.deliveries(provider: .paystack, event: "charge.success").last)
            let event = try PaystackWebhook.normalize(body: charge.body)
            #expect(event.amount == 2_500_000 && event.productID == Self.annual)
        }
    }

    @Test func nowIsRefusedBeforeAnyCall() async throws {
        try await LiveSandbox.with { sandbox in
            let client = sandbox.paystack()
            #expect(client.planChangeTimings == [.periodEnd])
            do throws(ProviderError) {
                _ = try await client.changePlan(subscriptionID: "SUB_x", PlanChange(variantID: Self.annual, effective: .now, proration: .none))
                Issue.record("a change now was accepted")
            } catch {
                #expect(error.kind == .validation && error.code == "plan_change_timing_unsupported")
            }
            let requests = try await sandbox.rawGet("/_sandbox/api-requests", key: LiveSandbox.psKey)
            #expect(requests["paystack", "total"]?.int64 == 0, "\(requests)")
        }
    }

    /// Paystack refuses the new subscription: the old one renews again, as
    /// before the request, and no new one exists.
    @Test func aRefusedCreationEnablesTheOldOneAgain() async throws {
        try await LiveSandbox.with { sandbox in
            let client = sandbox.paystack()
            let code = try await subscribe(sandbox, client, email: "ps-plan-refused@example.com")
            do throws(ProviderError) {
                _ = try await client.changePlan(subscriptionID: code, PlanChange(variantID: "PLN_missing", effective: .periodEnd, proration: .none))
                Issue.record("an unknown plan was accepted")
            } catch {
                #expect(error.kind == .notFound, "\(error)")
            }
            let old = try await fetched(sandbox, code)
            #expect(old["status"]?.string == "active" && old["next_payment_date"]?.date != nil)
            let list = try await sandbox.rawGet("/paystack/subscription", key: LiveSandbox.psKey)
            #expect(list["data"]?.array?.count == 1)
        }
    }

    /// A subscription that will not renew has no period end to change at.
    @Test func aNonRenewingSubscriptionIsRefusedUntouched() async throws {
        try await LiveSandbox.with { sandbox in
            let client = sandbox.paystack()
            let code = try await subscribe(sandbox, client, email: "ps-plan-cancelled@example.com")
            _ = try await client.cancelSubscription(id: code)
            do throws(ProviderError) {
                _ = try await client.changePlan(subscriptionID: code, PlanChange(variantID: Self.annual, effective: .periodEnd, proration: .none))
                Issue.record("a non-renewing subscription was changed")
            } catch {
                #expect(error.kind == .validation)
            }
            let list = try await sandbox.rawGet("/paystack/subscription", key: LiveSandbox.psKey)
            #expect(list["data"]?.array?.count == 1)
        }
    }
}
