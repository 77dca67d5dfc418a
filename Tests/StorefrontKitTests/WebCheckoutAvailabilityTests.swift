import Foundation
import Synchronization
@testable import StorefrontKit
import Testing

/// `webCheckoutAvailability()` for each policy case, over a stub server and a
/// fake App Store; the notice and token flow; the permit on create-checkout.
@Suite struct WebCheckoutAvailabilityTests {
    /// An App Store that answers what a test sets, and counts notices shown.
    final class FakeAppStore: AppStoreEnvironment {
        let answer: AppStoreStorefrontAnswer
        let eligible: Bool
        let continues: Bool
        let token: String?
        let notices = Mutex(0)
        let tokenTypes = Mutex<[String]>([])

        init(_ answer: AppStoreStorefrontAnswer, eligible: Bool = true, continues: Bool = true, token: String? = "dG9rZW4") {
            self.answer = answer
            self.eligible = eligible
            self.continues = continues
            self.token = token
        }

        func storefront() async -> AppStoreStorefrontAnswer { answer }
        func isEligibleForExternalPurchaseLinks() async -> Bool { eligible }
        func showExternalPurchaseNotice() async throws -> Bool {
            notices.withLock { $0 += 1 }
            return continues
        }
        func externalPurchaseToken(type: String) async throws -> String? {
            tokenTypes.withLock { $0.append(type) }
            return token
        }
    }

    static let policy = #"""
        {"success":true,"link_out":{"version":"v1","notice":"Not legal advice","default":"not_allowed","rules":[
          {"link_out":"allowed","storefronts":["USA"],"source":"s"},
          {"link_out":"entitlement_required","entitlement":"ExternalPurchaseCustomLink","storefronts":["NLD"],"source":"s"}]}}
        """#

    static func client(_ stub: StubServer, _ appStore: FakeAppStore) -> StorefrontClient {
        var options = StubServer.fastOptions()
        options.appStore = appStore
        return stub.client(options: options)
    }

    static func server() -> StubServer {
        StubServer { request, _ in
            switch request.url.path {
            case "/api/app-config":
                request.header("If-None-Match") == "\"v1tag\""
                    ? .response(status: 304, headers: ["ETag": "\"v1tag\""], body: Data())
                    : .json(200, policy, headers: ["ETag": "\"v1tag\""])
            case "/api/entitlements": .json(200, Fixtures.entitlements([]))
            default: .json(200, Fixtures.checkout())
            }
        }
    }

    @Test func eachPolicyCaseGivesItsAnswer() async throws {
        let stub = Self.server()
        defer { stub.unregister() }
        let cases: [(FakeAppStore, WebCheckoutAvailability)] = [
            (FakeAppStore(.code("USA")), .available(WebCheckoutPermit(storefront: "USA", externalPurchaseToken: nil))),
            (FakeAppStore(.code("usa")), .available(WebCheckoutPermit(storefront: "USA", externalPurchaseToken: nil))),
            (FakeAppStore(.code("NLD")), .needsNotice(storefront: "NLD", entitlement: "ExternalPurchaseCustomLink")),
            (FakeAppStore(.code("NLD"), eligible: false), .unavailable(storefront: "NLD", reason: .notEligible)),
            (FakeAppStore(.code("KOR")), .unavailable(storefront: "KOR", reason: .notAllowed)),
            (FakeAppStore(.unknown), .unavailable(storefront: nil, reason: .storefrontUnknown)),
            (FakeAppStore(.notAppStore), .available(WebCheckoutPermit(storefront: nil, externalPurchaseToken: nil))),
        ]
        for (appStore, expected) in cases {
            let got = try await Self.client(stub, appStore).webCheckoutAvailability()
            #expect(got == expected, "\(appStore.answer)")
            var shows = true
            if case .unavailable = expected { shows = false }
            #expect(got.showsPurchaseButton == shows)
        }
        #expect(appStoreNeverShowedANotice(cases.map(\.0)), "asking is not showing")
    }

    func appStoreNeverShowedANotice(_ stores: [FakeAppStore]) -> Bool { stores.allSatisfy { $0.notices.withLock { $0 } == 0 } }

    @Test func theConfigIsRevalidatedWithItsTag() async throws {
        let stub = Self.server()
        defer { stub.unregister() }
        let client = Self.client(stub, FakeAppStore(.code("USA")))
        let first = try await client.appConfig()
        let second = try await client.appConfig()
        #expect(first == second && first.linkOut.version == "v1" && first.linkOut.rules.count == 2)
        let asks = stub.requests.filter { $0.url.path == "/api/app-config" }
        #expect(asks.count == 2 && asks[0].header("If-None-Match") == nil && asks[1].header("If-None-Match") == "\"v1tag\"")
    }

    @Test func theNoticeGivesThePermitTheCheckoutCarries() async throws {
        let stub = Self.server()
        defer { stub.unregister() }
        let appStore = FakeAppStore(.code("nld"))
        let client = Self.client(stub, appStore)
        let permit = try #require(try await client.prepareWebCheckout())
        #expect(permit == WebCheckoutPermit(storefront: "NLD", externalPurchaseToken: "dG9rZW4"))
        #expect(appStore.notices.withLock { $0 } == 1 && appStore.tokenTypes.withLock { $0 } == ["ACQUISITION"])
        let product = Product(id: "ls_2", variantID: "ls_3", name: "Pro", priceFormatted: "$5", provider: .lemonSqueezy, interval: "month")
        _ = try await client.createCheckout(for: product, permit: permit)
        let post = try #require(stub.requests.first { $0.method == "POST" })
        #expect(post.json?["storefront"] as? String == "NLD" && post.json?["externalPurchaseToken"] as? String == "dG9rZW4")
        _ = try await client.createCheckout(for: product)
        let plain = stub.requests.filter { $0.method == "POST" }.last
        #expect(plain?.json?["storefront"] == nil && plain?.json?["externalPurchaseToken"] == nil, "nothing App Store without a permit")
    }

    @Test func aCancelledNoticeOpensNothingAndAMissingTokenIsAnError() async throws {
        let stub = Self.server()
        defer { stub.unregister() }
        #expect(try await Self.client(stub, FakeAppStore(.code("NLD"), continues: false)).prepareWebCheckout() == nil)
        await #expect(throws: StorefrontError.self) { try await Self.client(stub, FakeAppStore(.code("NLD"), token: nil)).prepareWebCheckout() }
        await #expect(throws: StorefrontError.self) { try await Self.client(stub, FakeAppStore(.unknown)).prepareWebCheckout() }
    }
}
