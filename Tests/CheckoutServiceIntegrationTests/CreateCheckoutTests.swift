import Catalog
import CheckoutService
import Foundation
import HTTPServer
import Kafka
import BillingModel
import Postgres
import SandboxKit
import SandboxServer
@testable import SeedModels
import Telemetry
import TestSupport
import Testing

/// `POST /api/create-checkout` against the provider sandbox, PostgreSQL and the broker.
@Suite struct CreateCheckoutTests {
    @Test(arguments: [("ls_2", Provider.lemonsqueezy), ("ps_PLN_sbxpremmonth01", Provider.paystack)])
    func createsAndPublishes(variant: String, provider: Provider) async throws {
        try await Harness.with { harness in
            let user = TestNames.unique("user")
            let token = try Harness.token(sub: user, email: "Buyer@Example.com")
            let response = try await harness.createCheckout(token: token, email: "buyer@example.com", variant: variant, product: variant)
            #expect(response.status == .ok, "\(response.text)")
            // The seed app's model decodes the answer.
            let seed = try response.decode(CheckoutResponse.self)
            #expect(seed.success && seed.checkoutUrl.hasPrefix(SandboxConfiguration().publicBaseURL + "/"))
            let answer = try response.decode(CreateCheckoutResponse.self)
            let checkoutID = try #require(answer.checkoutId)
            #expect(answer.provider == provider && answer.expiresAt != nil)

            let found = try await TopicReader.first(
                CheckoutCreatedRecord.self, topic: Topics.checkouts, clientID: "checkout-tests", timeout: .seconds(45)
            ) { record, _ in record.checkoutID == checkoutID }
            let (record, raw) = try #require(found, "checkout record \(checkoutID) not found on \(Topics.checkouts)")
            #expect(record.appUserID == user && record.provider == provider && record.url == seed.checkoutUrl)
            #expect(record.variantID.description == variant && record.email == "buyer@example.com")
            #expect(!record.emailVerified, "the token's email is not verified")
            #expect(raw.key.map { String(decoding: $0, as: UTF8.self) } == TopicKey.checkout(provider, appUserID: user))
            #expect(harness.app.metrics.renderPrometheus().contains("checkout_checkouts_created_total{provider=\"\(provider.rawValue)\"} 1"))

            // The provider got our user and checkout ids: paying it reports them back.
            await harness.sandbox.app.settleDeliveries()
            _ = try await harness.control("/checkouts/\(provider.rawValue)/\(record.providerCheckoutID)/pay", ["email": "buyer@example.com"])
            await harness.sandbox.app.settleDeliveries()
            let deliveries = await harness.sandbox.app.deliveries(provider: provider == .lemonsqueezy ? .lemonSqueezy : .paystack)
            #expect(
                deliveries.contains {
                    String(decoding: $0.body, as: UTF8.self).contains(checkoutID) && String(decoding: $0.body, as: UTF8.self).contains(user)
                })
            // ... with the proof that Storefront made this checkout for this user.
            let proof = TestOwnership.proof(checkoutID: checkoutID, appUserID: user)
            #expect(deliveries.contains { String(decoding: $0.body, as: UTF8.self).contains(#""storefront_proof":"\#(proof)""#) })
        }
    }

    /// `emailVerified` on the published record: true only when the record's
    /// email is the token's verified email; a typed `customerEmail` is a pre-fill.
    @Test func theRecordSaysWhetherItsEmailIsVerified() async throws {
        try await Harness.with { harness in
            func record(token: String, email: String?) async throws -> CheckoutCreatedRecord {
                let response = try await harness.createCheckout(token: token, email: email, variant: "ls_2")
                #expect(response.status == .ok, "\(response.text)")
                let checkoutID = try #require(try response.decode(CreateCheckoutResponse.self).checkoutId)
                let found = try await TopicReader.first(
                    CheckoutCreatedRecord.self, topic: Topics.checkouts, clientID: "checkout-tests", timeout: .seconds(45)
                ) { record, _ in record.checkoutID == checkoutID }
                return try #require(found?.0, "checkout record \(checkoutID) not found")
            }
            let verified = try Harness.token(sub: TestNames.unique("verified"), email: "V@example.com", emailVerified: true)
            let typedSame = try await record(token: verified, email: "v@Example.com ")
            #expect(typedSame.email == "v@example.com" && typedSame.emailVerified, "the verified address, typed again")
            let fromToken = try await record(token: verified, email: nil)
            #expect(fromToken.email?.lowercased() == "v@example.com" && fromToken.emailVerified)

            let noEmail = try Harness.token(sub: TestNames.unique("no-email"), email: nil)
            let typed = try await record(token: noEmail, email: "typed@example.com")
            #expect(typed.email == "typed@example.com" && !typed.emailVerified, "typed by a caller whose token has no email")
            let nothing = try await record(token: noEmail, email: nil)
            #expect(nothing.email == nil && !nothing.emailVerified)

            let unverified = try Harness.token(sub: TestNames.unique("unverified"), email: "u@example.com")
            let unverifiedRecord = try await record(token: unverified, email: "u@example.com")
            #expect(unverifiedRecord.email == "u@example.com" && !unverifiedRecord.emailVerified, "the token's email is not verified")
        }
    }

    @Test func validationErrors() async throws {
        try await Harness.with { harness in
            let token = try Harness.token(sub: "validator", email: "v@example.com")
            let badEmail = try await harness.createCheckout(token: token, email: "not-an-email", variant: "ls_2")
            #expect(badEmail.status == .badRequest && badEmail.text.contains("customerEmail"))
            let unknown = try await harness.createCheckout(token: token, email: "v@example.com", variant: "ls_424242")
            #expect(unknown.status == .notFound && unknown.text.contains("Unknown variant"))
            let malformedID = try await harness.createCheckout(token: token, email: nil, variant: "xx_1")
            #expect(malformedID.status == .badRequest)
            let malformed = try await harness.request(.post, "/api/create-checkout", token: token, json: "{\"variantId\": ")
            #expect(malformed.status == .badRequest && malformed.text.contains("not valid JSON"))
            let missing = try await harness.request(.post, "/api/create-checkout", token: token, json: "{\"customerEmail\":\"v@example.com\"}")
            #expect(missing.status == .badRequest && missing.text.contains("variantId"))
            let huge = "{\"variantId\":\"ls_2\",\"productId\":\"" + String(repeating: "x", count: 20_000) + "\"}"
            let oversize = try await harness.request(.post, "/api/create-checkout", token: token, json: huge)
            #expect(oversize.status == .contentTooLarge)
            let badKey = try await harness.request(
                .post, "/api/create-checkout", token: token, json: "{\"variantId\":\"ls_2\"}",
                headers: [("Idempotency-Key", String(repeating: "k", count: 300))])
            #expect(badKey.status == .badRequest)
            // Every error has the contract's shape.
            for response in [badEmail, unknown, malformed, oversize] {
                let body = try response.json()
                #expect(body["success"] as? Bool == false && (body["error"] as? String)?.isEmpty == false)
            }
            #expect(harness.app.metrics.renderPrometheus().contains("checkout_checkouts_created_total") == false)
        }
    }

    @Test func providerRateLimitBecomes503WithRetryAfter() async throws {
        // One request a minute: the catalog load uses it, the checkout is refused.
        try await Harness.with(rateLimit: RateLimitSettings(limit: 1, windowSeconds: 60)) { harness in
            let token = try Harness.token(sub: "limited", email: "l@example.com")
            let response = try await harness.createCheckout(token: token, email: "l@example.com", variant: "ls_2")
            #expect(response.status == .serviceUnavailable, "\(response.text)")
            #expect(response.headers["Retry-After"].flatMap(Int.init).map { $0 >= 1 } == true)
            #expect(response.text.contains("lemonsqueezy") && !response.text.contains(Harness.lsKey))
        }
    }

    @Test func catalogNotLoadedIsNotReady() async throws {
        try await Harness.with(loadCatalog: false) { harness in
            let ready = try await harness.request(.get, "/readyz", token: nil)
            #expect(ready.status == .serviceUnavailable && ready.text.contains("catalog"))
            let token = try Harness.token(sub: "early", email: nil)
            let early = try await harness.createCheckout(token: token, email: nil, variant: "ls_2")
            #expect(early.status == .serviceUnavailable)
            await harness.app.catalog.refresh()
            let loaded = try await harness.request(.get, "/readyz", token: nil)
            #expect(loaded.status == .ok, "\(loaded.text)")
        }
    }

    @Test func idempotencyKey() async throws {
        try await Harness.with { harness in
            let user = TestNames.unique("idem")
            let token = try Harness.token(sub: user, email: "i@example.com")
            let key = TestNames.unique("key")
            let first = try await harness.createCheckout(token: token, email: "i@example.com", variant: "ls_9", key: key)
            #expect(first.status == .ok, "\(first.text)")
            let again = try await harness.createCheckout(token: token, email: "i@example.com", variant: "ls_9", key: key)
            #expect(again.status == .ok && again.headers["Idempotent-Replayed"] == "true")
            let a = try first.decode(CreateCheckoutResponse.self), b = try again.decode(CreateCheckoutResponse.self)
            #expect(a.checkoutId == b.checkoutId && a.checkoutUrl == b.checkoutUrl)
            let different = try await harness.createCheckout(token: token, email: "i@example.com", variant: "ls_2", key: key)
            #expect(different.status == .unprocessableContent)
            // The key is per user: someone else's identical key is a new checkout.
            let other = try await harness.createCheckout(
                token: Harness.token(sub: user + "-2", email: "i@example.com"), email: "i@example.com", variant: "ls_9", key: key)
            #expect(other.status == .ok)
            let otherID = try other.decode(CreateCheckoutResponse.self).checkoutId
            #expect(otherID != a.checkoutId)
            #expect(harness.app.metrics.renderPrometheus().contains("checkout_idempotent_replays_total 1"))
        }
    }

    @Test func concurrentSameKeyCreatesOneProviderCheckout() async throws {
        try await Harness.with { harness in
            let user = TestNames.unique("race")
            let token = try Harness.token(sub: user, email: "r@example.com")
            let key = TestNames.unique("key")
            let responses = try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        try await harness.createCheckout(token: token, email: "r@example.com", variant: "ps_PLN_sbxbasicmonth1", key: key)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(responses.allSatisfy { $0.status == .ok }, "\(responses.map(\.text))")
            let ids = Set(try responses.map { try $0.decode(CreateCheckoutResponse.self).checkoutId })
            let urls = Set(try responses.map { try $0.decode(CreateCheckoutResponse.self).checkoutUrl })
            #expect(ids.count == 1 && urls.count == 1)
            #expect(harness.app.metrics.renderPrometheus().contains("checkout_checkouts_created_total{provider=\"paystack\"} 1"))
            let rows = try await harness.pool.query("SELECT count(*)::bigint FROM checkout_idempotency_keys WHERE app_user_id = \(user)")
            #expect(try rows[0].decode(Int.self) == 1)
        }
    }
}
