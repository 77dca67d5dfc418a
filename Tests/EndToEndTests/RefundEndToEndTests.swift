@testable import SeedModels
import Foundation
import HTTPClient
import Postgres
import TestSupport
import Testing

/// Refunds from support, through the gateway on the contract suite's stack:
/// a key with the `purchases:refund` scope asks the server API (or
/// `storefront refund`) for a refund, the sandbox's provider makes it and
/// sends its own refund webhook, and that webhook ends access, as a refund
/// made on the provider's dashboard would. Every answer is checked against
/// the OpenAPI document.
extension ContractTests {
    static let refundsPath = "/api/users/{app_user_id}/refunds"

    /// A new key with `scope`, made with the CLI; the key and its id.
    func refundKey(_ stack: LiveStack, _ scope: String) async throws -> (key: String, id: String) {
        let created = try await apiKeys(stack, ["create", "--name", "e2e support \(scope)", "--scope", scope])
        let key = try #require(created.split(separator: "\n").first.map(String.init), "\(created)")
        return (key, String(key.dropFirst("sfk_test_".count).prefix(12)))
    }

    @Test(arguments: ["lemonsqueezy", "paystack", "stripe"])
    func aRefundAskedThroughTheServerAPIEndsAccessThroughTheProvidersOwnWebhook(provider: String) async throws {
        let stack = try self.stack
        let contract = try OpenAPIContract.repository()
        let g = stack.gateway
        let flow = try await PurchaseFlow.make(stack, provider: provider)
        let code = try #require(try await flow.buySubscription().subscriptionCode)
        let support = try await refundKey(stack, "purchases:refund")
        let reader = try await refundKey(stack, "entitlements:read")
        let path = g + "/api/users/\(flow.subject)/refunds"
        let body = #"{"purchase":{"provider":"\#(provider)","type":"subscription","id":"\#(code)"}}"#
        func post(_ key: String, _ json: String, idempotencyKey: String, to url: String = path) async throws -> HTTPClientResponse {
            let response = try await stack.request(.post, url, json: json, headers: [("X-API-Key", key), ("Idempotency-Key", idempotencyKey)])
            expectContract(contract, "post", Self.refundsPath, response)
            return response
        }

        // A read-only key may not refund; neither may the app's own token.
        let readOnly = try await post(reader.key, body, idempotencyKey: "e2e-read-\(provider)")
        #expect(readOnly.status == 403 && readOnly.bodyString.contains(#""code":"insufficient_scope""#), "\(readOnly.bodyString)")
        // …though it is a good key for what it may do.
        let read = try await stack.request(.get, g + "/api/users/\(flow.subject)/entitlements", headers: [("X-API-Key", reader.key)])
        #expect(read.status == 200, "\(read.bodyString.prefix(300))")
        let withToken = try await stack.request(.post, path, token: flow.token, json: body, headers: [("Idempotency-Key", "e2e-token")])
        #expect(withToken.status == 403 && withToken.bodyString.contains(#""code":"api_key_required""#))
        // Another user's purchase is not found; more than was paid is refused before the provider.
        let stranger = try await post(
            support.key, body, idempotencyKey: "e2e-stranger-\(provider)", to: g + "/api/users/someone-else-\(flow.subject)/refunds")
        #expect(stranger.status == 404 && stranger.bodyString.contains(#""code":"purchase_not_found""#), "\(stranger.bodyString)")
        let tooMuch = #"{"purchase":{"provider":"\#(provider)","type":"subscription","id":"\#(code)"},"amount":100000000}"#
        // The payment is projected a moment after the subscription: until then there is nothing to refund.
        let exceeds = try await stack.eventually("the payment projected") { () async throws -> HTTPClientResponse? in
            let response = try await post(support.key, tooMuch, idempotencyKey: "e2e-too-much-\(provider)")
            return response.status == 409 ? nil : response
        }
        #expect(exceeds.status == 422 && exceeds.bodyString.contains(#""code":"amount_exceeds_payment""#), "\(exceeds.bodyString)")
        #expect(try await flow.activeEntitlements().count == 1, "nothing was refunded yet")

        // The refund itself: Paystack's through `storefront refund`, the others through the API.
        let idempotencyKey = "e2e-refund-\(flow.subject)"
        if provider == "paystack" {
            let output = stack.state + "/refund-\(flow.subject).out"
            try await ScriptRunner.run(
                try stack.binary("storefront"),
                [
                    "refund", "--user", flow.subject, "--provider", provider, "--type", "subscription", "--id", code, "--idempotency-key",
                    idempotencyKey,
                ],
                environment: ["STOREFRONT_API_URL": g, "STOREFRONT_API_KEY": support.key, "LOG_LEVEL": "error"], outputFile: output)
            let printed = try String(contentsOfFile: output, encoding: .utf8)
            #expect(printed.contains("idempotency key: \(idempotencyKey)") && printed.contains(#""success":true"#), "\(printed)")
        } else {
            let refunded = try await post(support.key, body, idempotencyKey: idempotencyKey)
            #expect(refunded.status == 200 && refunded.bodyString.contains(#""success":true"#), "\(refunded.bodyString)")
        }
        // The same key again: the first answer, and the provider is not asked twice.
        let replay = try await post(support.key, body, idempotencyKey: idempotencyKey)
        #expect(replay.status == 200 && replay.headers["Idempotent-Replayed"] == "true", "\(replay.bodyString)")

        _ = try await stack.request(.post, stack.sandbox + "/_sandbox/deliveries/settle")
        let revoked = try await MoneyBackEndToEndTests.entitlement(flow, "access ended by the provider's refund webhook") {
            $0["is_active"] as? Bool == false
        }
        #expect(revoked["refunded_at"] is String)

        // Audited: one refund_requested command, with the key that asked.
        let audit = try await stack.eventually("the refund audited") { () async throws -> [String]? in
            try await stack.withDatabase { pool in
                let rows = try await pool.query(
                    """
                    SELECT requested_by, outcome FROM commands
                    WHERE kind = 'refund_requested' AND provider = \(provider) AND subscription_id = \(code)
                    """)
                let found = try rows.map { try $0.decode((String?, String?).self) }.map { "\($0.0 ?? "-") \($0.1 ?? "-")" }
                return found.isEmpty ? nil : found
            }
        }
        #expect(audit == ["\(support.id) accepted"], "\(audit)")

        // The suite's stack is shared: its other tests expect every key they did not make revoked.
        for id in [support.id, reader.id] { #expect(try await apiKeys(stack, ["revoke", id]).contains("revoked \(id)")) }
    }
}
