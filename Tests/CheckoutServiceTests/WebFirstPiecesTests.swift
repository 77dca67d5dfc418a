import Foundation
import BillingModel
import HTTPServer
import ServiceSettings
import Testing
import Webhooks
@testable import CheckoutService

/// The web-first routes' pure pieces (docs/web-first.md): tokens, client
/// addresses, anonymous users, association files, the paywall's form, the
/// command records; no server.
@Suite struct WebFirstPiecesTests {
    static let ownership = try! OwnershipProof(key: Secret("0123456789abcdef0123456789abcdef-test-only"))

    @Test func aRedemptionTokenIsDerivedFromItsIDAndParsedFromALinkOrAlone() throws {
        let tokens = try #require(RedemptionTokens(ownership: Self.ownership))
        let id = UUID()
        let token = tokens.token(for: id)
        #expect(token.utf8.count == RedemptionTokens.length)
        #expect(tokens.token(for: id) == token, "the same link on a reload")
        #expect(tokens.token(for: UUID()) != token)
        #expect(RedemptionTokens.parse(token) == token)
        #expect(RedemptionTokens.parse("  https://shop.example.com/redeem/\(token)?utm=x\n") == token)
        #expect(RedemptionTokens.parse(String(token.dropLast())) == nil, "truncated")
        #expect(RedemptionTokens.parse(token + "A") == nil, "too long")
        #expect(RedemptionTokens.parse(String(token.dropLast()) + "!") == nil, "not base64url")
        #expect(RedemptionTokens.parse("https://x/redeem/") == nil)
        #expect(RedemptionTokens.hash(token).count == 32 && RedemptionTokens.hash(token) != Array(token.utf8))
        #expect(RedemptionTokens(ownership: try OwnershipProof(key: Secret("another-key-that-is-long-enough-0123456789")))!.token(for: id) != token)
    }

    /// After the ownership proof's key rotates (the old key kept as a previous
    /// one), tokens and links made before stay valid; new ones use the new key.
    @Test func anonymousTokensAndRedemptionLinksOutliveAKeyRotation() throws {
        let clock: @Sendable () -> Date = { Date() }
        let newKey = try OwnershipProof.Key(id: "k2", secret: Secret("the-next-key-0123456789abcdef0123456789abcdef"))
        let rotated = try OwnershipProof(
            current: newKey, previous: [.init(secret: Secret("0123456789abcdef0123456789abcdef-test-only"))])
        let before = try #require(AnonymousUsers(ownership: Self.ownership, now: clock)).mint()
        let users = try #require(AnonymousUsers(ownership: rotated, now: clock))
        #expect(users.verify(before.token) == before.appUserId, "a token minted under the previous key")
        let after = try users.mint()
        #expect(AnonymousUsers(ownership: Self.ownership, now: clock)?.verify(after.token) == nil, "new tokens use the new key")
        #expect(users.verify(after.token) == after.appUserId)

        let id = UUID()
        let oldToken = try #require(RedemptionTokens(ownership: Self.ownership)).token(for: id)
        let tokens = try #require(RedemptionTokens(ownership: rotated))
        #expect(tokens.token(for: id) != oldToken, "a new link is made under the new key")
        #expect(tokens.token(for: id, hash: RedemptionTokens.hash(oldToken)) == oldToken, "the stored link is shown again as issued")
        #expect(tokens.token(for: id, hash: RedemptionTokens.hash(tokens.token(for: id))) == tokens.token(for: id))
        let dropped = try OwnershipProof(current: newKey)
        #expect(RedemptionTokens(ownership: dropped)?.token(for: id, hash: RedemptionTokens.hash(oldToken)) == nil, "its key removed")
    }

    @Test func clientAddressesCountIPv6ByTheirSlash64AndTrustTheGatewayOnlyWhenTold() {
        #expect(ClientAddress.prefix(of: "203.0.113.9") == "203.0.113.9")
        #expect(ClientAddress.prefix(of: "2001:db8:0:12:aaaa::1") == "2001:db8:0:12::/64")
        #expect(ClientAddress.prefix(of: "2001:db8:0:12:ffff:1:2:3") == "2001:db8:0:12::/64")
        #expect(ClientAddress.prefix(of: "2001:DB8::") == "2001:db8:0:0::/64")
        let request = HTTPRequest(method: .get, path: "/", headers: ["X-Forwarded-For": "198.51.100.7"], remoteAddress: "127.0.0.1")
        #expect(ClientAddress.key(request, trustForwardedFor: false) == "addr:127.0.0.1")
        #expect(ClientAddress.key(request, trustForwardedFor: true) == "addr:198.51.100.7")
    }

    @Test func anonymousUsersVerifyTheirOwnTokensOnly() throws {
        let clock: @Sendable () -> Date = { Date() }
        let users = AnonymousUsers(ownership: Self.ownership, now: clock)
        let minted = try #require(users).mint()
        #expect(AnonymousUsers.isAnonymousID(minted.appUserId))
        #expect(users?.verify(minted.token) == minted.appUserId)
        #expect(users?.verify(minted.token + "x") == nil, "forged")
        let otherKey = try OwnershipProof(key: Secret("another-key-that-is-long-enough-0123456789"))
        #expect(AnonymousUsers(ownership: otherKey, now: clock)?.verify(minted.token) == nil, "another deployment's")
        let later: @Sendable () -> Date = { Date().addingTimeInterval(AnonymousUsers.lifetime + 3600) }
        #expect(AnonymousUsers(ownership: Self.ownership, now: later)?.verify(minted.token) == nil, "expired")
        #expect(try #require(users).mint().appUserId != minted.appUserId)
        // The answer of POST /api/anonymous: expiresAt is an RFC 3339 string, as every date the API writes.
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(HTTPResponse.json(minted).body)) as? [String: Any])
        #expect((answer["expiresAt"] as? String).flatMap(Timestamp.parse) != nil, "\(answer)")
        #expect(
            answer["success"] as? Bool == true && answer["appUserId"] as? String == minted.appUserId && answer["token"] as? String == minted.token)
    }

    @Test func theAssociationFilesNameTheAppsAndTheLinkPaths() throws {
        #expect(AppAssociation.apple(appIDs: []) == nil)
        let apple = try #require(AppAssociation.apple(appIDs: ["ABCDE12345.com.example.app"]))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(apple)) as? [String: Any])
        let details = try #require((json["applinks"] as? [String: Any])?["details"] as? [[String: Any]])
        #expect(details.first?["appIDs"] as? [String] == ["ABCDE12345.com.example.app"])
        let paths = (details.first?["components"] as? [[String: String]])?.compactMap { $0["/"] }
        #expect(paths == ["/redeem/*", "/checkout/complete*"])
        let android = try #require(AppAssociation.android([("com.example.app", "AA:BB")]))
        #expect(String(decoding: android, as: UTF8.self).contains("\"package_name\":\"com.example.app\""))
    }

    @Test func thePaywallFormIsDecodedAndEscaped() {
        let fields = PaywallPage.formFields(Array("variantId=ls_123&ref=spring%2Dsale&ref=second&x".utf8))
        #expect(fields["variantId"] == "ls_123" && fields["ref"] == "spring-sale" && fields["x"] == "")
        #expect(HTMLPage.escape(#"<a href="x">'&"#) == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;")
        #expect(CreateCheckoutRequest.isValidRef("spring-sale_2026.v1~a"))
        #expect(
            !CreateCheckoutRequest.isValidRef("") && !CreateCheckoutRequest.isValidRef("a b")
                && !CreateCheckoutRequest.isValidRef(String(repeating: "a", count: 65)))
    }

    @Test func theRedirectCarriesTheCheckoutID() {
        #expect(
            CheckoutCreator.redirect("https://x.example/checkout/complete", checkoutID: "c1") == "https://x.example/checkout/complete?checkout_id=c1")
        #expect(CheckoutCreator.redirect("myapp://done?a=1", checkoutID: "c1") == "myapp://done?a=1&checkout_id=c1")
    }

    @Test func commandRecordsAreToldApartByKind() throws {
        let merge = UserMergeCommand(commandID: "m1", anonymousUserID: "anon_x", appUserID: "user-1", requestedAt: Date(timeIntervalSince1970: 1))
        guard case .userMerge(let decoded) = try CommandRecord.decode(RecordCoding.encode(merge)) else {
            Issue.record("a merge decoded as something else")
            return
        }
        #expect(decoded == merge)
        let redeem = SubscriptionCommand(
            commandID: "c1", kind: .redeem, provider: .lemonsqueezy, subscriptionID: "41", appUserID: "u", requestedAt: Date(timeIntervalSince1970: 1)
        )
        guard case .purchase(let command) = try CommandRecord.decode(RecordCoding.encode(redeem)) else {
            Issue.record("a redeem decoded as something else")
            return
        }
        #expect(command.kind == .redeem)
    }

    @Test func anAnonymousCheckoutRecordHasNoUserAndItsOwnKey() throws {
        let record = CheckoutCreatedRecord(
            checkoutID: "c1", provider: .lemonsqueezy, appUserID: nil, email: nil, variantID: CatalogID("ls_1")!, productID: nil,
            providerCheckoutID: "p", url: "https://x", createdAt: Date(timeIntervalSince1970: 1), expiresAt: nil, ref: "spring")
        let json = String(decoding: try RecordCoding.encode(record), as: UTF8.self)
        #expect(json.contains("\"appUserId\":null") && json.contains("\"ref\":\"spring\""))
        #expect(try RecordCoding.decode(CheckoutCreatedRecord.self, from: RecordCoding.encode(record)) == record)
        #expect(record.key.contains("anonymous:c1"))
    }
}
