@testable import SeedModels
import CheckoutService
import Foundation
import HTTPServer
import BillingModel
import Postgres
import Testing

/// `GET /api/subscription/status` read from projection rows inserted by SQL.
@Suite struct StatusTests {
    let day: TimeInterval = 86_400

    func status(
        _ harness: Harness, user: String, email: String?, emailVerified: Bool = false
    ) async throws
        -> (SubscriptionStatus, SubscriptionStatusResponse, [String: Any])
    {
        let token = try Harness.token(sub: user, email: email, emailVerified: emailVerified)
        let response = try await harness.request(.get, "/api/subscription/status", token: token)
        #expect(response.status == .ok, "\(response.text)")
        return (try response.decode(SubscriptionStatus.self), try response.decode(SubscriptionStatusResponse.self), try response.json())
    }

    @Test func nothingIsExplicitNulls() async throws {
        try await Harness.with { harness in
            let (seed, _, raw) = try await status(harness, user: "nobody", email: "nobody@example.com")
            #expect(!seed.active && seed.planName == nil && seed.subscriptionCode == nil)
            for key in ["plan_name", "next_billing_date", "subscription_code", "email_token", "status", "provider", "pending_checkout"] {
                #expect(raw[key] is NSNull, "\(key) should be an explicit null")
            }
            #expect((raw["entitlements"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func activeLemonSqueezySubscription() async throws {
        try await Harness.with { harness in
            let renews = Date().addingTimeInterval(20 * day)
            try await ProjectionRows.subscription(
                harness.pool, provider: "lemonsqueezy", id: "1001", appUserID: "u-active", product: "2", variant: "3",
                plan: "Premium – Yearly", status: "active", renewsAt: renews, portal: "https://portal.example.com/1")
            // An older expired one loses to the active one.
            try await ProjectionRows.subscription(
                harness.pool, provider: "lemonsqueezy", id: "999", appUserID: "u-active", status: "expired",
                endsAt: Date().addingTimeInterval(-day), updatedAt: Date())
            let (seed, full, _) = try await status(harness, user: "u-active", email: "a@example.com")
            #expect(seed.active && seed.planName == "Premium – Yearly" && seed.subscriptionCode == "1001" && seed.emailToken == nil)
            #expect(seed.nextBillingDate.flatMap(Timestamp.parse).map { abs($0.timeIntervalSince(renews)) < 1 } == true)
            #expect(full.status == "active" && full.provider == .lemonsqueezy && !full.cancelAtPeriodEnd)
            #expect(full.customerPortalURL == "https://portal.example.com/1" && full.entitlements.map(\.identifier) == ["ls_2"])
            #expect(full.entitlements.first?.isActive == true && full.entitlements.first?.willRenew == true)
        }
    }

    @Test func anExpiredPortalLinkIsNeverHandedOut() async throws {
        try await Harness.with { harness in
            try await ProjectionRows.subscription(
                harness.pool, provider: "lemonsqueezy", id: "1101", appUserID: "u-portal", product: "2",
                plan: "Premium", status: "active", renewsAt: Date().addingTimeInterval(20 * day),
                portal: "https://portal.example.com/old", portalSeenAt: Date().addingTimeInterval(-25 * 3600))
            let (_, full, raw) = try await status(harness, user: "u-portal", email: nil)
            #expect(full.status == "active" && raw["customer_portal_url"] is NSNull, "a link signed over 24 h ago has expired")
        }
    }

    @Test func cancelledButNotEndedAndExpired() async throws {
        try await Harness.with { harness in
            let ends = Date().addingTimeInterval(5 * day)
            try await ProjectionRows.subscription(
                harness.pool, provider: "lemonsqueezy", id: "2001", appUserID: "u-grace", product: "2", plan: "Premium",
                status: "cancelled", renewsAt: ends, endsAt: ends, cancelAtPeriodEnd: true)
            let (grace, graceFull, _) = try await status(harness, user: "u-grace", email: nil)
            #expect(grace.active && grace.nextBillingDate == nil && graceFull.cancelAtPeriodEnd && graceFull.endsAt != nil)
            #expect(graceFull.entitlements.map(\.identifier) == ["ls_2"] && graceFull.entitlements.first?.isActive == true)
            #expect(graceFull.entitlements.first?.willRenew == false)

            try await ProjectionRows.subscription(
                harness.pool, provider: "lemonsqueezy", id: "2002", appUserID: "u-expired", product: "2", plan: "Premium",
                status: "expired", endsAt: Date().addingTimeInterval(-day))
            let (expired, expiredFull, _) = try await status(harness, user: "u-expired", email: nil)
            #expect(!expired.active && expired.subscriptionCode == "2002" && expired.nextBillingDate == nil)
            #expect(expiredFull.status == "expired" && expiredFull.entitlements.allSatisfy { !$0.isActive })
        }
    }

    @Test func paystackNonRenewingWithEmailToken() async throws {
        try await Harness.with { harness in
            let periodEnd = Date().addingTimeInterval(10 * day)
            try await ProjectionRows.subscription(
                harness.pool, provider: "paystack", id: "SUB_nonrenew1", appUserID: nil, customerID: "CUS_1",
                email: "PS@Example.com", product: "PLN_sbxpremmonth01", variant: "PLN_sbxpremmonth01",
                plan: "Premium Monthly", status: "non-renewing", renewsAt: periodEnd, emailToken: "tok_abc")
            // No owner: found only through a VERIFIED email claim, never an unverified one or none.
            let (unverified, _, _) = try await status(harness, user: "u-ps", email: "ps@example.com")
            #expect(!unverified.active && unverified.subscriptionCode == nil)
            let (noEmail, _, _) = try await status(harness, user: "u-ps", email: nil)
            #expect(noEmail.subscriptionCode == nil)
            let (seed, full, _) = try await status(harness, user: "u-ps", email: "ps@example.com", emailVerified: true)
            #expect(seed.active && seed.emailToken == "tok_abc" && seed.subscriptionCode == "SUB_nonrenew1" && seed.nextBillingDate == nil)
            #expect(full.provider == .paystack && full.entitlements.map(\.identifier) == ["ps_PLN_sbxpremmonth01"])
            // A provider customer linked to someone else changes nothing: customers never decide ownership.
            try await ProjectionRows.customer(harness.pool, provider: "paystack", customerID: "CUS_1", appUserID: "someone-else")
            let (still, _, _) = try await status(harness, user: "u-ps", email: "ps@example.com", emailVerified: true)
            #expect(still.subscriptionCode == "SUB_nonrenew1")
            let (customer, _, _) = try await status(harness, user: "someone-else", email: nil)
            #expect(customer.subscriptionCode == nil)
            // Once it has an owner, the email no longer reaches it.
            try await ProjectionRows.owner(harness.pool, provider: "paystack", id: "SUB_nonrenew1", appUserID: "the-owner")
            let (after, _, _) = try await status(harness, user: "u-ps", email: "ps@example.com", emailVerified: true)
            #expect(!after.active && after.subscriptionCode == nil)
            let (owner, _, _) = try await status(harness, user: "the-owner", email: nil)
            #expect(owner.subscriptionCode == "SUB_nonrenew1")
        }
    }

    @Test func anUnownedPurchaseIsNotClaimableInItsFirstMinutes() async throws {
        try await Harness.with { harness in
            try await ProjectionRows.subscription(
                harness.pool, provider: "paystack", id: "SUB_fresh1", appUserID: nil, customerID: "CUS_9",
                email: "fresh@example.com", product: "PLN_x", variant: "PLN_x", plan: "Premium",
                status: "active", renewsAt: Date().addingTimeInterval(day), firstSeenAt: Date())
            let (fresh, _, _) = try await status(harness, user: "u-fresh", email: "fresh@example.com", emailVerified: true)
            #expect(fresh.subscriptionCode == nil, "its owning charge may still be on its way")
        }
    }

    @Test func ordersAndPendingCheckout() async throws {
        try await Harness.with { harness in
            let now = Date()
            try await ProjectionRows.order(
                harness.pool, provider: "lemonsqueezy", id: "5001", appUserID: "u-orders", product: "1", variant: "1",
                status: "paid", paidAt: now.addingTimeInterval(-2 * day))
            try await ProjectionRows.order(
                harness.pool, provider: "lemonsqueezy", id: "5002", appUserID: "u-orders", product: "6", variant: "7",
                status: "refunded", paidAt: now.addingTimeInterval(-3 * day), refundedAt: now.addingTimeInterval(-day))
            try await ProjectionRows.checkout(
                harness.pool, id: "chk-pending", provider: "lemonsqueezy", appUserID: "u-orders", createdAt: now.addingTimeInterval(-600))
            let (seed, full, raw) = try await status(harness, user: "u-orders", email: nil)
            #expect(!seed.active && full.entitlements.filter(\.isActive).map(\.identifier) == ["ls_1"])
            #expect(full.entitlements.first { $0.identifier == "ls_6" }?.isActive == false, "the refunded order is listed, inactive")
            #expect(full.entitlements.first?.source == .purchase && full.entitlements.first?.expiresAt == nil)
            #expect(full.pendingCheckout?.checkoutId == "chk-pending")
            #expect((raw["pending_checkout"] as? [String: Any])?["url"] as? String == "https://pay.example.com/chk-pending")

            // A payment after the checkout clears it.
            try await ProjectionRows.order(
                harness.pool, provider: "lemonsqueezy", id: "5003", appUserID: "u-orders", product: "2", variant: "2",
                status: "paid", paidAt: now.addingTimeInterval(-60))
            let (_, paid, _) = try await status(harness, user: "u-orders", email: nil)
            #expect(paid.pendingCheckout == nil && paid.entitlements.filter(\.isActive).map(\.identifier) == ["ls_1", "ls_2"])

            // A checkout older than an hour is not pending.
            try await ProjectionRows.checkout(
                harness.pool, id: "chk-old", provider: "paystack", appUserID: "u-old", createdAt: now.addingTimeInterval(-7200))
            let (_, old, _) = try await status(harness, user: "u-old", email: nil)
            #expect(old.pendingCheckout == nil)
        }
    }
}
