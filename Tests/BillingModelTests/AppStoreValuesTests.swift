import BillingModel
import Foundation
import Testing

/// The App Store values: storefront codes, external purchase tokens, and the
/// link-out policy file (the shipped one included).
@Suite struct AppStoreValuesTests {
    static let created = Date(timeIntervalSince1970: 1_765_000_000)

    static func token(
        id: String = "0f4c2ab1-5d6e-4a7b-9c8d-112233445566", type: ExternalPurchaseToken.TokenType? = .acquisition,
        expires: Date? = created.addingTimeInterval(86_400 * 30)
    ) -> ExternalPurchaseToken {
        ExternalPurchaseToken(
            externalPurchaseID: id, appAppleID: 1_234_567_890, bundleID: "com.example.storefront", createdAt: created, expiresAt: expires,
            tokenType: type)
    }

    /// Base64URL without padding of `json`, as StoreKit encodes a token.
    static func encoded(_ json: String) -> String {
        Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test func storefrontsAreThreeLettersUppercased() {
        #expect(AppStoreStorefront("USA")?.code == "USA")
        #expect(AppStoreStorefront("nld")?.code == "NLD")
        for bad in ["", "US", "USAA", "U5A", "ÜSA", "US "] { #expect(AppStoreStorefront(bad) == nil, "\(bad)") }
    }

    @Test func aTokenSurvivesItsOwnEncodingAndPaddingOrPlainBase64() throws {
        let token = Self.token()
        #expect(try ExternalPurchaseToken(value: token.value) == token)
        #expect(!token.value.contains("=") && !token.value.contains("+") && !token.value.contains("/"))
        let padded = token.value + String(repeating: "=", count: (4 - token.value.utf8.count % 4) % 4)
        #expect(try ExternalPurchaseToken(value: padded) == token)
        let plain = Data(try #require(Data(base64Encoded: padded.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/"))))
            .base64EncodedString()
        #expect(try ExternalPurchaseToken(value: plain) == token)
        let withoutExtras = Self.token(type: nil, expires: nil)
        #expect(try ExternalPurchaseToken(value: withoutExtras.value) == withoutExtras, "tokens other than custom link ones have no type or end")
    }

    @Test func appleSandboxTokensAreTold() {
        #expect(Self.token(id: "SANDBOX_0f4c2ab1").isSandbox)
        #expect(!Self.token().isSandbox)
    }

    @Test func malformedTokensAreRefusedWithTheirReason() {
        let cases: [(String, ExternalPurchaseToken.Invalid)] = [
            (String(repeating: "A", count: ExternalPurchaseToken.maximumLength + 1), .tooLong),
            ("", .notBase64URL),
            ("not base64!", .notBase64URL),
            (Self.encoded("not json"), .notJSON),
            (Self.encoded("[1,2]"), .notJSON),
            (Self.encoded(#"{"externalPurchaseId":"a","tokenCreationDate":1,"appAppleId":1}"#), .missingFields),
            (Self.encoded(#"{"externalPurchaseId":"a","tokenCreationDate":"1","appAppleId":1,"bundleId":"b"}"#), .malformedField),
            (Self.encoded(#"{"externalPurchaseId":"a","tokenCreationDate":1.5,"appAppleId":1,"bundleId":"b"}"#), .malformedField),
            (Self.encoded(#"{"externalPurchaseId":"a","tokenCreationDate":true,"appAppleId":1,"bundleId":"b"}"#), .malformedField),
            (Self.encoded(#"{"externalPurchaseId":"","tokenCreationDate":1,"appAppleId":1,"bundleId":"b"}"#), .malformedField),
            (Self.encoded(#"{"externalPurchaseId":"a b","tokenCreationDate":1,"appAppleId":1,"bundleId":"b"}"#), .malformedField),
            (Self.encoded(#"{"externalPurchaseId":"a","tokenCreationDate":1,"appAppleId":0,"bundleId":"b"}"#), .malformedField),
            (Self.encoded(#"{"externalPurchaseId":"a","tokenCreationDate":1,"appAppleId":1,"bundleId":"b/c"}"#), .malformedField),
            (Self.encoded(#"{"externalPurchaseId":"a","tokenCreationDate":1,"appAppleId":1,"bundleId":"b","tokenType":"OTHER"}"#), .malformedField),
            (
                Self.encoded(#"{"externalPurchaseId":"a","tokenCreationDate":1,"appAppleId":1,"bundleId":"b","tokenExpirationDate":-5}"#),
                .malformedField
            ),
        ]
        for (value, reason) in cases {
            #expect(throws: reason, "\(value.prefix(60))") { try ExternalPurchaseToken(value: value) }
        }
        let fine = Self.encoded(#"{"externalPurchaseId":"a","tokenCreationDate":1,"appAppleId":1,"bundleId":"b","extra":{"x":1}}"#)
        #expect(throws: Never.self, "fields Apple may add later are ignored") { try ExternalPurchaseToken(value: fine) }
    }

    @Test func aPolicyAnswersPerStorefrontAndFallsBackToItsDefault() throws {
        let policy = try LinkOutPolicy.parse(
            Array(
                #"""
                {"version":"v1","notice":"n","default":"not_allowed","rules":[
                  {"link_out":"allowed","storefronts":["USA"],"source":"s"},
                  {"link_out":"entitlement_required","entitlement":"ExternalPurchaseCustomLink","storefronts":["NLD","deu"],"source":"s"}]}
                """#.utf8))
        #expect(policy.linkOut(for: try #require(AppStoreStorefront("USA"))) == .allowed)
        #expect(policy.linkOut(for: try #require(AppStoreStorefront("DEU"))) == .entitlementRequired)
        #expect(policy.rule(for: try #require(AppStoreStorefront("NLD")))?.entitlement == "ExternalPurchaseCustomLink")
        #expect(policy.linkOut(for: try #require(AppStoreStorefront("KOR"))) == .notAllowed)
        #expect(LinkOutPolicy.unconfigured.linkOut(for: try #require(AppStoreStorefront("USA"))) == .notAllowed, "no file: nowhere")
    }

    @Test func aBrokenPolicyNamesEveryProblem() {
        let cases: [(String, String)] = [
            ("nope", "not JSON"),
            (#"{"version":"v","notice":"n","rules":[]}"#, "missing default"),
            (#"{"version":"v","notice":"n","default":"sometimes","rules":[]}"#, "default"),
            (#"{"version":"v","notice":"n","default":"allowed","rules":[{"link_out":"allowed","storefronts":["US"],"source":"s"}]}"#, "alpha-3"),
            (#"{"version":"v 1","notice":"n","default":"allowed","rules":[]}"#, "version"),
            (
                #"{"version":"v","notice":"n","default":"allowed","rules":[{"link_out":"allowed","storefronts":["USA"],"source":"s"},{"link_out":"not_allowed","storefronts":["USA"],"source":"s"}]}"#,
                "USA is in rules[0] and rules[1]"
            ),
            (
                #"{"version":"v","notice":"n","default":"allowed","rules":[{"link_out":"allowed","storefronts":[],"source":""}]}"#,
                "rules[0] names no storefront"
            ),
        ]
        for (text, expected) in cases {
            do {
                _ = try LinkOutPolicy.parse(Array(text.utf8))
                Issue.record("accepted: \(text)")
            } catch {
                #expect(error.description.contains(expected), "\(text): \(error)")
            }
        }
    }

    @Test func theShippedPolicyIsValidAndSaysWhatTheDocsSay() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let policy = try LinkOutPolicy.load(path: root.appendingPathComponent("deploy/config/app-store-policy.json").path)
        func linkOut(_ code: String) throws -> LinkOut { policy.linkOut(for: try #require(AppStoreStorefront(code))) }
        #expect(try linkOut("USA") == .allowed)
        #expect(try ["NLD", "DEU", "FRA", "JPN"].allSatisfy { try linkOut($0) == .entitlementRequired })
        #expect(try linkOut("KOR") == .notAllowed && policy.defaultLinkOut == .notAllowed)
        #expect(policy.notice.contains("Not legal advice"))
        #expect(policy.rules.allSatisfy { $0.source.contains("https://") }, "every rule names its source")
    }

    @Test func aCheckoutsAppStoreFieldsTravelOnItsRecord() throws {
        let record = CheckoutCreatedRecord(
            checkoutID: "c1", provider: .stripe, appUserID: "u1", email: nil, variantID: try #require(CatalogID("st_price_1")), productID: nil,
            providerCheckoutID: "cs_1", url: "https://pay.example", createdAt: Self.created, expiresAt: nil,
            appStore: AppStoreCheckout(storefront: try #require(AppStoreStorefront("NLD")), token: Self.token()))
        let decoded = try RecordCoding.decode(CheckoutCreatedRecord.self, from: try RecordCoding.encode(record))
        #expect(decoded == record)
        let plain = CheckoutCreatedRecord(
            checkoutID: "c2", provider: .stripe, appUserID: "u1", email: nil, variantID: try #require(CatalogID("st_price_1")), productID: nil,
            providerCheckoutID: "cs_2", url: "https://pay.example", createdAt: Self.created, expiresAt: nil)
        #expect(!String(decoding: try RecordCoding.encode(plain), as: UTF8.self).contains("appStore"), "absent unless sent")
    }
}
