import Foundation
import Testing
@testable import SandboxKit

/// The emulated External Purchase Server API: the token check, Apple's report
/// rules, the injected faults and the listing, without a crypto library (the
/// signature check is a stand-in that takes signatures spelled `good`).
@Suite struct AppleExternalPurchaseTests {
    static let settings = AppleSettings(issuerID: "issuer-1", keyID: "KEY1", bundleID: "com.example.app", publicKeyPEM: "public key")
    let clock = TestClock()
    let app: SandboxApp

    init() {
        let signer = SandboxSigner(
            hmacSHA256Hex: FakeHMAC.signer.hmacSHA256Hex, hmacSHA512Hex: FakeHMAC.signer.hmacSHA512Hex,
            verifiesES256JWT: { token, key in key == "public key" && token.hasSuffix(".good") })
        app = SandboxApp(
            configuration: SandboxConfiguration(apple: Self.settings), signer: signer, transport: RecordingTransport(), clock: clock.sandboxClock)
    }

    static func part(_ value: JSONValue) -> String {
        Data(JSONWriter.encode(value)).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// A token as the reporter makes one, with `change` applied to its claims.
    func token(signature: String = "good", kid: String = "KEY1", change: (JSONValue) -> JSONValue = { $0 }) -> String {
        let now = Int(clock.now.timeIntervalSince1970)
        let claims: JSONValue = ["iss": "issuer-1", "aud": "appstoreconnect-v1", "bid": "com.example.app", "iat": .int(now), "exp": .int(now + 1200)]
        return Self.part(["alg": "ES256", "kid": .string(kid), "typ": "JWT"]) + "." + Self.part(change(claims)) + "." + signature
    }

    func send(_ report: JSONValue, token: String? = nil) async -> SandboxResponse {
        let headers = SandboxHeaders([("Authorization", "Bearer \(token ?? self.token())"), ("Content-Type", "application/json")])
        return await app.handle(
            SandboxRequest(method: "PUT", target: "/externalPurchase/v1/reports", headers: headers, body: JSONWriter.encode(report)))
    }

    func listing() async -> JSONValue {
        await app.handle(SandboxRequest(method: "GET", target: "/_sandbox/apple/external-purchase/reports")).json ?? .null
    }

    static func uuid() -> String { UUID().uuidString.lowercased() }

    static func buy(_ id: String, event: String = "SUBSCRIPTION_START", reference: String? = nil) -> JSONValue {
        var line: JSONValue = [
            "lineItemId": .string(id), "creationDate": 1_750_000_000_000, "eventType": "BUY", "productType": "SUBSCRIPTION",
            "productIdentifier": "premium",
            "quantity": 1, "pricingCurrency": "EUR", "reportingCurrency": "EUR", "amountTaxExclusive": 8_260, "amountTaxInclusive": 9_990,
            "netAmountTaxExclusive": 8_260, "taxAmount": 1_730, "taxCountry": "NLD", "subscriptionEvent": .string(event),
            "subscriptionStartDate": 1_750_000_000_000, "subscriptionEndDate": 1_752_592_000_000, "subscriptionDaysOfPaidService": 30,
        ]
        if let reference { line = line.setting("referenceLineItemId", .string(reference)) }
        return line
    }

    static func refund(_ id: String, of reference: String) -> JSONValue {
        [
            "lineItemId": .string(id), "referenceLineItemId": .string(reference), "creationDate": 1_750_000_100_000, "eventType": "REFUND",
            "pricingCurrency": "EUR", "reportingCurrency": "EUR", "amountTaxExclusive": 4_130, "amountTaxInclusive": 4_995,
            "netAmountTaxExclusive": 4_130, "taxAmount": 865, "taxCountry": "NLD",
        ]
    }

    static func report(_ token: String = "SANDBOX_token-1", status: String = "LINE_ITEM", lines: [JSONValue]) -> JSONValue {
        [
            "requestIdentifier": .string(uuid()), "externalPurchaseId": .string(token), "tokenType": "ACQUISITION", "status": .string(status),
            "lineItems": .array(lines),
        ]
    }

    @Test func acceptsAPurchaseThenItsRenewalAndRefundAndListsThem() async {
        #expect(await send(Self.report(lines: [Self.buy("start-1")])).status == 200)
        #expect(await send(Self.report(lines: [Self.buy("renew-1", event: "RENEWAL", reference: "start-1")])).status == 200)
        let refunded = await send(Self.report(lines: [Self.refund("refund-1", of: "renew-1")]))
        #expect(refunded.status == 200)
        let reports = await listing()["reports"]?.arrayValue ?? []
        #expect(reports.compactMap { $0["report"]?["lineItems"]?[0]?["lineItemId"]?.stringValue } == ["start-1", "renew-1", "refund-1"])
    }

    @Test func refusesTokensApplesRulesRefuse() async {
        let report = Self.report(lines: [Self.buy("start-1")])
        #expect(await send(report, token: token(signature: "forged")).status == 401)
        #expect(await send(report, token: token(kid: "OTHER")).status == 401)
        #expect(await send(report, token: token { $0.setting("aud", "someone-else") }).status == 401)
        #expect(await send(report, token: token { $0.setting("bid", "com.other") }).status == 401)
        let now = Int(clock.now.timeIntervalSince1970)
        #expect(await send(report, token: token { $0.setting("exp", .int(now + 7200)) }).status == 401)
        #expect(await send(report, token: token { $0.setting("iat", .int(now - 4000)).setting("exp", .int(now - 1000)) }).status == 401)
        #expect(await listing()["reports"]?.arrayValue?.isEmpty == true)
        #expect(await send(report).status == 200)
    }

    @Test func answersApplesReportErrors() async {
        let missing = await send(Self.report(lines: []))
        #expect(missing.status == 400)
        #expect(missing.json?["errorCode"]?.stringValue == "MissingLineItemsForStatusError")
        let notAllowed = await send(Self.report(status: "NO_LINE_ITEM", lines: [Self.buy("x")]))
        #expect(notAllowed.json?["errorCode"]?.stringValue == "LineItemsNotAllowedForStatusError")
        // A refund of a line item Apple never received: the reporter must send the purchase first.
        let orphanRefund = await send(Self.report(lines: [Self.refund("refund-1", of: "start-1")]))
        #expect(orphanRefund.status == 400)
        #expect(orphanRefund.json?["lineItemId"]?.stringValue == "refund-1")
        #expect(await send(Self.report(lines: [Self.buy("start-1")])).status == 200)
        let regression = await send(Self.report(status: "NO_LINE_ITEM", lines: []))
        #expect(regression.json?["errorCode"]?.stringValue == "LineItemStatusRegressionError")
        #expect(await send(Self.report(lines: [Self.buy("start-1")])).status == 400)
        #expect(await send(Self.report("SANDBOX_token-2", status: "NO_LINE_ITEM", lines: [])).status == 200)
    }

    @Test func aRequestIdentifierIsTakenOnceAndCanBeRetrieved() async {
        let report = Self.report(lines: [Self.buy("start-1")])
        #expect(await send(report).status == 200)
        #expect(await send(report).status == 400)
        let id = report["requestIdentifier"]?.stringValue ?? ""
        let headers = SandboxHeaders([("Authorization", "Bearer \(token())")])
        let found = await app.handle(SandboxRequest(method: "GET", target: "/externalPurchase/v1/reports/\(id)", headers: headers))
        #expect(found.status == 200)
        #expect(found.json?["report"]?["externalPurchaseId"]?.stringValue == "SANDBOX_token-1")
        let unknown = await app.handle(SandboxRequest(method: "GET", target: "/externalPurchase/v1/reports/\(Self.uuid())", headers: headers))
        #expect(unknown.status == 404)
    }

    @Test func injectedFaultsAnswerTheNextReportsAndAreListed() async {
        let set = await app.handle(
            SandboxRequest(method: "POST", target: "/_sandbox/apple/external-purchase/faults", body: JSONWriter.encode(["answer_next": [429, 503]])))
        #expect(set.status == 200)
        let report = Self.report(lines: [Self.buy("start-1")])
        #expect(await send(report).status == 429)
        #expect(await send(report).status == 503)
        #expect(await send(report).status == 200)
        let attempts = await listing()["attempts"]?.arrayValue ?? []
        #expect(attempts.compactMap { $0["status"]?.intValue } == [429, 503, 200])
        #expect(await listing()["reports"]?.arrayValue?.count == 1)
    }
}
