import BillingModel
@testable import CheckoutService
import Foundation
import HTTPServer
import Synchronization
import Telemetry
import Testing

/// Create-checkout's `storefront` and `externalPurchaseToken` against the
/// link-out policy and Apple's token rules, over a fake token store; and
/// `GET /api/app-config` with its entity tag and a policy file that changes.
@Suite struct LinkOutCheckTests {
    /// Token owners in memory.
    final class MemoryTokenStore: ExternalPurchaseTokenStore {
        let owners = Mutex<[String: String]>([:])
        let kept = Mutex<[String: Date]>([:])

        func claim(externalPurchaseID: String, owner: String, keepUntil: Date) async throws -> String {
            kept.withLock { $0[externalPurchaseID] = keepUntil }
            return owners.withLock { owners in
                if let holder = owners[externalPurchaseID] { return holder }
                owners[externalPurchaseID] = owner
                return owner
            }
        }
    }

    static let now = Date(timeIntervalSince1970: 1_765_000_000)
    static let policy = LinkOutPolicy(
        version: "test-1", notice: "test", defaultLinkOut: .notAllowed,
        rules: [
            .init(linkOut: .allowed, storefronts: [AppStoreStorefront("USA")!], source: "s"),
            .init(linkOut: .entitlementRequired, storefronts: [AppStoreStorefront("NLD")!], source: "s", entitlement: "ExternalPurchaseCustomLink"),
        ])

    static func check(
        live: Bool = false, bundleID: String? = "com.example.storefront", appAppleID: Int64? = nil, tokens: MemoryTokenStore = MemoryTokenStore()
    ) -> LinkOutCheck {
        LinkOutCheck(
            policy: LinkOutPolicySource(policy: policy),
            configuration: AppStoreConfiguration(bundleID: bundleID, appAppleID: appAppleID, acceptsSandboxTokens: !live),
            tokens: tokens)
    }

    static func token(id: String = "epid-1", bundle: String = "com.example.storefront", app: Int64 = 99, expires: TimeInterval = 3600) -> String {
        ExternalPurchaseToken(
            externalPurchaseID: id, appAppleID: app, bundleID: bundle, createdAt: now.addingTimeInterval(-60),
            expiresAt: now.addingTimeInterval(expires), tokenType: .acquisition
        ).value
    }

    static func body(storefront: String? = nil, token: String? = nil) -> CreateCheckoutRequest {
        CreateCheckoutRequest(customerEmail: nil, variantId: "st_price_1", productId: nil, storefront: storefront, externalPurchaseToken: token)
    }

    /// The refusal's status and code, or nil when the check passed.
    static func refusal(_ check: LinkOutCheck, _ body: CreateCheckoutRequest, owner: String = "u1") async -> (HTTPStatus, String?)? {
        do {
            _ = try await check.check(body, owner: owner, now: now)
            return nil
        } catch let error as HTTPError {
            return (error.status, error.code)
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test func withoutAStorefrontNothingIsCheckedOrRecorded() async throws {
        #expect(try await Self.check().check(Self.body(), owner: "u1", now: Self.now) == nil)
        #expect(await Self.refusal(Self.check(), Self.body(token: Self.token()))! == (.badRequest, "storefront_required"))
    }

    @Test func thePolicyDecidesPerStorefront() async throws {
        let check = Self.check()
        let us = try await check.check(Self.body(storefront: "usa"), owner: "u1", now: Self.now)
        #expect(us == AppStoreCheckout(storefront: AppStoreStorefront("USA")!), "the US needs no token; the storefront is kept")
        #expect(await Self.refusal(check, Self.body(storefront: "KOR"))! == (.forbidden, "link_out_not_allowed"))
        #expect(await Self.refusal(check, Self.body(storefront: "NLD"))! == (.unprocessableContent, "external_purchase_token_required"))
        let nl = try #require(try await check.check(Self.body(storefront: "NLD", token: Self.token()), owner: "u1", now: Self.now))
        #expect(nl.storefront.code == "NLD" && nl.externalPurchaseID == "epid-1" && nl.tokenType == .acquisition && nl.tokenExpiresAt != nil)
        #expect(await Self.refusal(check, Self.body(storefront: "U1A"))! == (.badRequest, "invalid_storefront"))
    }

    @Test func aTokenMustBeWellFormedOfThisAppThisEnvironmentAndUnexpired() async {
        #expect(await Self.refusal(Self.check(), Self.body(storefront: "NLD", token: "%%%"))! == (.badRequest, "invalid_external_purchase_token"))
        #expect(
            await Self.refusal(Self.check(bundleID: nil), Self.body(storefront: "NLD", token: Self.token()))!
                == (.unprocessableContent, "external_purchase_tokens_not_configured"))
        #expect(
            await Self.refusal(Self.check(), Self.body(storefront: "NLD", token: Self.token(bundle: "com.other.app")))!
                == (.unprocessableContent, "external_purchase_token_foreign"))
        #expect(
            await Self.refusal(Self.check(appAppleID: 5), Self.body(storefront: "NLD", token: Self.token(app: 99)))!
                == (.unprocessableContent, "external_purchase_token_foreign"))
        #expect(await Self.refusal(Self.check(appAppleID: 99), Self.body(storefront: "NLD", token: Self.token(app: 99))) == nil)
        #expect(
            await Self.refusal(Self.check(live: true), Self.body(storefront: "NLD", token: Self.token(id: "SANDBOX_1")))!
                == (.unprocessableContent, "external_purchase_token_sandbox"))
        #expect(await Self.refusal(Self.check(live: false), Self.body(storefront: "NLD", token: Self.token(id: "SANDBOX_1"))) == nil)
        #expect(
            await Self.refusal(Self.check(), Self.body(storefront: "NLD", token: Self.token(expires: -1)))!
                == (.unprocessableContent, "external_purchase_token_expired"))
    }

    @Test func aTokenIsOneUsersAndTheirsAgainAndAgain() async {
        let check = Self.check()
        let body = Self.body(storefront: "NLD", token: Self.token())
        #expect(await Self.refusal(check, body, owner: "alice") == nil)
        #expect(await Self.refusal(check, body, owner: "alice") == nil, "the same user may send it with every checkout")
        #expect(await Self.refusal(check, body, owner: "mallory")! == (.conflict, "external_purchase_token_reused"))
    }

    @Test func aTokenIsRememberedUntilItsEndAtMostAYear() async throws {
        let tokens = MemoryTokenStore()
        let check = Self.check(tokens: tokens)
        _ = try await check.check(Self.body(storefront: "NLD", token: Self.token(id: "soon", expires: 3600)), owner: "u1", now: Self.now)
        _ = try await check.check(Self.body(storefront: "NLD", token: Self.token(id: "far", expires: 50 * 365 * 86_400)), owner: "u1", now: Self.now)
        let kept = tokens.kept.withLock { $0 }
        #expect(kept["soon"] == Self.now.addingTimeInterval(3600))
        #expect(kept["far"] == Self.now.addingTimeInterval(LinkOutCheck.tokenMemory), "the client states the end; the row is kept a year at most")
        // A refusal before the claim records nothing.
        #expect(await Self.refusal(check, Self.body(storefront: "KOR", token: Self.token(id: "korea"))) != nil)
        #expect(tokens.kept.withLock { $0["korea"] } == nil)
    }

    @Test func appConfigIsTaggedAndRevalidated() async throws {
        let source = LinkOutPolicySource(policy: Self.policy)
        let router = Router()
        AppConfigRoute(policy: source).mount(on: router)
        let logger = Logger(service: "link-out-tests", minimumLevel: .critical)
        let responder = router.buildResponder()
        let first = await responder.respond(to: try HTTPRequest(method: .get, target: "/api/app-config"), logger: logger).response
        #expect(first.status == .ok && first.headers["Cache-Control"] == AppConfigRoute.cacheControl)
        let body = try JSONSerialization.jsonObject(with: Data(first.body)) as? [String: Any]
        let linkOut = try #require(body?["link_out"] as? [String: Any])
        #expect(linkOut["version"] as? String == "test-1" && linkOut["default"] as? String == "not_allowed")
        #expect((linkOut["rules"] as? [[String: Any]])?.first?["storefronts"] as? [String] == ["USA"])
        let etag = try #require(first.headers["ETag"])
        let again = await responder.respond(
            to: try HTTPRequest(method: .get, target: "/api/app-config", headers: ["If-None-Match": etag]), logger: logger
        ).response
        #expect(again.status == 304 && again.body.isEmpty)
    }

    @Test func anEditedPolicyFileIsRereadAndABrokenOneLeavesTheLastGood() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("policy-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        func write(_ version: String, _ linkOut: String) throws {
            try Data(#"{"version":"\#(version)","notice":"n","default":"\#(linkOut)","rules":[]}"#.utf8).write(to: URL(fileURLWithPath: path))
        }
        try write("one", "not_allowed")
        let source = try LinkOutPolicySource(path: path, logger: Logger(service: "link-out-tests", minimumLevel: .critical))
        #expect(source.policy.version == "one")
        try write("two-longer", "allowed")
        source.reloadIfChanged()
        #expect(source.policy.version == "two-longer" && source.policy.defaultLinkOut == .allowed)
        try Data("{ broken".utf8).write(to: URL(fileURLWithPath: path))
        source.reloadIfChanged()
        #expect(source.policy.version == "two-longer", "a broken file keeps the last good policy in force")
        #expect(throws: LinkOutPolicy.Invalid.self) { try LinkOutPolicySource(path: path + ".missing", logger: Logger(service: "t")) }
    }
}
