import CheckoutService
import Foundation
import HTTPClient
import HTTPServer
import Kafka
import BillingModel
import Postgres
@testable import SeedModels
import Telemetry
import TestSupport
import Testing

/// Cancel and resume against sandbox subscriptions created by paying a checkout.
@Suite struct CommandTests {
    /// Creates a checkout through the service, pays it in the sandbox, and
    /// inserts the projection row the projector would have written.
    func paidSubscription(_ harness: Harness, provider: Provider, variant: String, user: String, email: String) async throws -> String {
        let created = try await harness.createCheckout(token: Harness.token(sub: user, email: email), email: email, variant: variant)
        #expect(created.status == .ok, "\(created.text)")
        let url = try created.decode(CreateCheckoutResponse.self).checkoutUrl
        let checkoutID = try #require(url.split(separator: "/").last.map { String($0.split(separator: "?")[0]) })
        let paid = try await harness.control("/checkouts/\(provider.rawValue)/\(checkoutID)/pay", ["email": email])
        let code = try #require(text(paid[provider == .lemonsqueezy ? "subscription_id" : "subscription_code"]), "\(paid)")
        try await ProjectionRows.subscription(
            harness.pool, provider: provider.rawValue, id: code, appUserID: user, email: email,
            status: "active", renewsAt: Date().addingTimeInterval(30 * 86_400))
        return code
    }

    @Test(arguments: [(Provider.lemonsqueezy, "ls_2"), (.paystack, "ps_PLN_sbxpremmonth01")])
    func ownerCancelsThenResumes(provider: Provider, variant: String) async throws {
        try await Harness.with { harness in
            let user = TestNames.unique("owner")
            let code = try await paidSubscription(harness, provider: provider, variant: variant, user: user, email: "owner@example.com")
            let token = try Harness.token(sub: user, email: "owner@example.com")

            let cancel = try await harness.request(
                .post, "/api/subscription/cancel", token: token, json: "{\"subscription_code\":\"\(code)\",\"email_token\":null}")
            #expect(cancel.status == .ok, "\(cancel.text)")
            let body = try cancel.json()
            #expect(body["success"] as? Bool == true && body["subscription_code"] as? String == code)
            #expect(["cancelled", "non-renewing"].contains(body["status"] as? String ?? ""))
            #expect(body["cancel_at_period_end"] as? Bool == true && body["ends_at"] is String, "\(cancel.text)")

            // The provider really cancelled it.
            let fetched = try await harness.http.get(
                harness.sandboxURL + (provider == .lemonsqueezy ? "/lemonsqueezy/v1/subscriptions/\(code)" : "/paystack/subscription/\(code)"),
                headers: ["Authorization": "Bearer \(provider == .lemonsqueezy ? Harness.lsKey : Harness.psKey)"])
            #expect(
                fetched.bodyString.contains(provider == .lemonsqueezy ? "\"cancelled\":true" : "non-renewing"), "\(fetched.bodyString.prefix(400))")

            let command = try await TopicReader.first(
                SubscriptionCommand.self, topic: Topics.commands, clientID: "checkout-tests", timeout: .seconds(45)
            ) { command, _ in
                command.subscriptionID == code && command.appUserID == user && command.kind == .cancelRequested
            }
            let (record, raw) = try #require(command, "cancel command for \(code) not found on \(Topics.commands)")
            #expect(record.provider == provider)
            #expect(raw.key.map { String(decoding: $0, as: UTF8.self) } == TopicKey.command(provider, subscriptionID: code))

            let resume = try await harness.request(.post, "/api/subscription/resume", token: token, json: "{\"subscription_code\":\"\(code)\"}")
            #expect(resume.status == .ok, "\(resume.text)")
            #expect(try resume.json()["status"] as? String == "active")
            #expect(
                harness.app.metrics.renderPrometheus().contains(
                    "checkout_subscription_commands_total{kind=\"cancel\",provider=\"\(provider.rawValue)\"} 1"))
        }
    }

    @Test(arguments: [(Provider.lemonsqueezy, "ls_2"), (.paystack, "ps_PLN_sbxpremmonth01")])
    func thePortalLinkIsFetchedFreshForTheOwnerOnly(provider: Provider, variant: String) async throws {
        try await Harness.with { harness in
            let user = TestNames.unique("portal")
            let code = try await paidSubscription(harness, provider: provider, variant: variant, user: user, email: "portal@example.com")
            let link = try await harness.request(
                .get, "/api/subscription/portal?subscription_code=\(code)",
                token: Harness.token(sub: user, email: "portal@example.com"))
            #expect(link.status == .ok, "\(link.text)")
            let body = try link.json()
            #expect((body["url"] as? String)?.hasPrefix("http") == true && body["subscription_code"] as? String == code)
            let stranger = try await harness.request(
                .get, "/api/subscription/portal?subscription_code=\(code)",
                token: Harness.token(sub: TestNames.unique("stranger"), email: nil))
            #expect(stranger.status == .notFound)
            let missing = try await harness.request(.get, "/api/subscription/portal", token: Harness.token(sub: user, email: nil))
            #expect(missing.status == .badRequest)
        }
    }

    /// Found by `make fuzz`: resuming an active Paystack subscription (Paystack
    /// 400 "already active") or cancelling a cancelled one (404 "not found or
    /// already inactive") was answered 502, which apps take for a provider
    /// outage and retry; the document promises 409 for a refused change.
    @Test func aChangeTheProviderRefusesInTheSubscriptionsStateIsAConflict() async throws {
        try await Harness.with { harness in
            let user = TestNames.unique("conflict")
            let code = try await paidSubscription(
                harness, provider: .paystack, variant: "ps_PLN_sbxpremmonth01", user: user, email: "conflict@example.com")
            let token = try Harness.token(sub: user, email: "conflict@example.com")
            let body = "{\"subscription_code\":\"\(code)\"}"
            let resumeActive = try await harness.request(.post, "/api/subscription/resume", token: token, json: body)
            #expect(resumeActive.status == .conflict, "\(resumeActive.text)")
            #expect(
                resumeActive.text
                    == #"{"success":false,"error":"Payment provider paystack refused to resume the subscription in its current state","code":"provider_refused"}"#
            )
            let cancel = try await harness.request(.post, "/api/subscription/cancel", token: token, json: body)
            #expect(cancel.status == .ok, "\(cancel.text)")
            let cancelAgain = try await harness.request(.post, "/api/subscription/cancel", token: token, json: body)
            #expect(cancelAgain.status == .conflict, "\(cancelAgain.text)")
        }
    }

    /// Found by `make fuzz`: a NUL byte in the portal's `subscription_code`
    /// reached PostgreSQL, which refused the query, and the caller got 500.
    @Test func subscriptionCodesOutsidePrintableASCIIAreBadRequests() async throws {
        try await Harness.with { harness in
            let token = try Harness.token(sub: TestNames.unique("nul"), email: "nul@example.com")
            for query in ["%C3%99%C3%BB%F3%B7%AA%B4%00", "abc%00", "%C3%A9t%C3%A9", "a%0Ab"] {
                let portal = try await harness.request(.get, "/api/subscription/portal?subscription_code=\(query)", token: token)
                #expect(portal.status == .badRequest, "\(query): \(portal.status) \(portal.text)")
            }
            for code in [#"abc\u0000"#, #"\u00e9t\u00e9"#, #"a\nb"#] {
                for action in ["cancel", "resume"] {
                    let answer = try await harness.request(
                        .post, "/api/subscription/\(action)", token: token, json: "{\"subscription_code\":\"\(code)\"}")
                    #expect(answer.status == .badRequest, "\(action) \(code): \(answer.status) \(answer.text)")
                    #expect(answer.text == #"{"success":false,"error":"subscription_code must be printable ASCII","code":"bad_request"}"#)
                }
            }
        }
    }

    @Test func anotherUsersSubscriptionIsNotFoundAndUntouched() async throws {
        try await Harness.with { harness in
            let owner = TestNames.unique("victim")
            let code = try await paidSubscription(harness, provider: .lemonsqueezy, variant: "ls_9", user: owner, email: "victim@example.com")
            // Same email as the owner, different subject: the row names its app user, so the email does not matter.
            let intruder = try Harness.token(sub: TestNames.unique("intruder"), email: "victim@example.com")
            let cancel = try await harness.request(.post, "/api/subscription/cancel", token: intruder, json: "{\"subscription_code\":\"\(code)\"}")
            #expect(cancel.status == .notFound && cancel.text.contains("Subscription not found"))
            let unknown = try await harness.request(.post, "/api/subscription/cancel", token: intruder, json: "{\"subscription_code\":\"31337\"}")
            #expect(unknown.status == .notFound && unknown.text == cancel.text)
            let fetched = try await harness.http.get(
                harness.sandboxURL + "/lemonsqueezy/v1/subscriptions/\(code)", headers: ["Authorization": "Bearer \(Harness.lsKey)"])
            #expect(fetched.bodyString.contains("\"status\":\"active\""), "\(fetched.bodyString.prefix(400))")
            let missing = try await harness.request(.post, "/api/subscription/cancel", token: intruder, json: "{\"subscription_code\":\"\"}")
            #expect(missing.status == .badRequest)
        }
    }

    /// The provider carries out the cancel but answers after the checkout's
    /// provider deadline: the app hears 503 well before the handler's own
    /// deadline, and a `refresh_requested` command makes the reconciler fetch
    /// the subscription, so the cancel reaches the projection without a webhook.
    @Test(arguments: [(Provider.lemonsqueezy, "ls_2"), (.paystack, "ps_PLN_sbxpremmonth01")])
    func aCancelAnsweredTooLateIsRefetched(provider: Provider, variant: String) async throws {
        try await Harness.with(providerTimeout: .seconds(1)) { harness in
            let user = TestNames.unique("late")
            let code = try await paidSubscription(harness, provider: provider, variant: variant, user: user, email: "late@example.com")
            let token = try Harness.token(sub: user, email: "late@example.com")
            let slow = try await harness.http.post(
                harness.sandboxURL + "/_sandbox/faults", headers: ["Content-Type": "application/json"],
                body: Array(#"{"api_answer_delay_ms": 8000}"#.utf8))
            #expect(slow.isSuccess, "\(slow.bodyString)")

            let started = ContinuousClock.now
            let cancel = try await harness.request(.post, "/api/subscription/cancel", token: token, json: "{\"subscription_code\":\"\(code)\"}")
            #expect(cancel.status == .serviceUnavailable && cancel.headers["Retry-After"] != nil, "\(cancel.text)")
            // The deadline is 1 s, the provider's answer 8 s: the margin is for a loaded machine.
            #expect(ContinuousClock.now - started < .seconds(6), "answered at the provider deadline, not after the provider")

            let refresh = try await TopicReader.first(
                SubscriptionCommand.self, topic: Topics.commands, clientID: "checkout-tests", timeout: .seconds(45)
            ) { command, _ in
                command.subscriptionID == code && command.appUserID == user && command.kind == .refreshRequested
            }
            #expect(refresh != nil, "no refresh_requested for \(code) on \(Topics.commands)")
            _ = try await harness.control("/faults")
            // The provider did cancel: what the reconciler will fetch says so.
            let fetched = try await harness.http.get(
                harness.sandboxURL + (provider == .lemonsqueezy ? "/lemonsqueezy/v1/subscriptions/\(code)" : "/paystack/subscription/\(code)"),
                headers: ["Authorization": "Bearer \(provider == .lemonsqueezy ? Harness.lsKey : Harness.psKey)"])
            #expect(
                fetched.bodyString.contains(provider == .lemonsqueezy ? "\"cancelled\":true" : "non-renewing"), "\(fetched.bodyString.prefix(400))")
        }
    }
}
