import Foundation
import HTTPClient
import TestSupport
import Testing

/// The server API and the live stream through the gateway, on the contract
/// suite's stack: keys made and revoked with the `storefront` CLI, every
/// answer checked against the OpenAPI document.
extension ContractTests {
    /// `storefront api-keys …` against the stack's database (as its owner), and what it printed.
    func apiKeys(_ stack: LiveStack, _ arguments: [String]) async throws -> String {
        let output = stack.state + "/api-keys-\(UUID().uuidString.prefix(6)).out"
        try await ScriptRunner.run(
            try stack.binary("storefront"), ["api-keys"] + arguments,
            environment: ["DATABASE_URL": stack.databaseURL, "LOG_LEVEL": "error"], outputFile: output)
        return try String(contentsOfFile: output, encoding: .utf8)
    }

    func object(_ response: HTTPClientResponse) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? NSDictionary, "\(response.bodyString.prefix(300))")
    }

    @Test func aServerKeyReadsAnyUserAndNeverCrossesWithAnAppToken() async throws {
        let stack = try self.stack
        let contract = try OpenAPIContract.repository()
        let g = stack.gateway
        let flow = try await PurchaseFlow.make(stack, provider: "lemonsqueezy")
        _ = try await flow.buySubscription()
        // A key that may manage subscriptions reads exactly what the app reads; a read-only key
        // reads the same without what can act on a subscription (its links and tokens).
        let created = try await apiKeys(stack, ["create", "--name", "e2e backend", "--scope", "subscriptions:manage"])
        let key = try #require(created.split(separator: "\n").first.map(String.init), "\(created)")
        #expect(key.hasPrefix("sfk_test_"), "\(created)")
        let readOnlyCreated = try await apiKeys(stack, ["create", "--name", "e2e reader", "--scope", "entitlements:read"])
        let readOnly = try #require(readOnlyCreated.split(separator: "\n").first.map(String.init), "\(readOnlyCreated)")

        for (server, app) in [
            ("/api/users/{app_user_id}/entitlements", "/api/entitlements"), ("/api/users/{app_user_id}/subscription", "/api/subscription/status"),
        ] {
            let path = server.replacingOccurrences(of: "{app_user_id}", with: flow.subject)
            let byKey = try await stack.request(.get, g + path, headers: [("Authorization", "Bearer \(key)")])
            let byHeader = try await stack.request(.get, g + path, headers: [("X-API-Key", key)])
            let byApp = try await stack.request(.get, g + app, token: flow.token)
            #expect(byKey.status == 200 && byHeader.status == 200, "\(byKey.bodyString.prefix(300))")
            #expect(try object(byKey) == (try object(byApp)) && (try object(byHeader)) == (try object(byApp)), "\(path) answers as \(app)")
            expectContract(contract, "get", server, byKey)
            let byReader = try await stack.request(.get, g + path, headers: [("X-API-Key", readOnly)])
            let reader = try #require(try object(byReader).mutableCopy() as? NSMutableDictionary)
            let expected = try #require(try object(byApp).mutableCopy() as? NSMutableDictionary)
            for capability in ["customer_portal_url", "email_token"] where expected[capability] != nil {
                #expect(reader[capability] is NSNull, "\(path): \(capability) is not a reader's")
                expected[capability] = NSNull()
            }
            if let pending = expected["pending_checkout"] as? NSDictionary, let copy = pending.mutableCopy() as? NSMutableDictionary {
                copy["url"] = NSNull()
                expected["pending_checkout"] = copy
            }
            #expect(reader == expected, "\(path): a reader's answer is the app's without its capabilities")
            expectContract(contract, "get", server, byReader)
            // The app's token is no server credential, and no credential is none.
            let withToken = try await stack.request(.get, g + path, token: flow.token)
            #expect(withToken.status == 403 && withToken.bodyString.contains(#""code":"api_key_required""#))
            expectContract(contract, "get", server, withToken)
            let anonymous = try await stack.request(.get, g + path)
            #expect(anonymous.status == 401)
            expectContract(contract, "get", server, anonymous)
        }
        #expect(try await flow.entitlements().contains { $0["is_active"] as? Bool == true }, "the key read a real purchase")

        // A key on the app's routes.
        for path in ["/api/entitlements", "/api/subscription/status", "/api/entitlements/stream"] {
            let response = try await stack.request(.get, g + path, headers: [("Authorization", "Bearer \(key)")])
            #expect(response.status == 403 && response.bodyString.contains(#""code":"app_token_required""#), "\(path)")
            expectContract(contract, "get", path, response)
        }

        // The stream answers the app's token: nothing within a second, and a reset for a cursor it never held.
        let quiet = try await stack.request(.get, g + "/api/entitlements/stream?wait=1", token: flow.token)
        #expect(quiet.bodyString == #"{"success":true,"events":[],"cursor":null,"reset":false}"#, "\(quiet.bodyString)")
        expectContract(contract, "get", "/api/entitlements/stream", quiet)
        let reset = try await stack.request(.get, g + "/api/entitlements/stream?after=evt-unknown", token: flow.token)
        #expect(reset.bodyString == #"{"success":true,"events":[],"cursor":null,"reset":true}"#)
        expectContract(contract, "get", "/api/entitlements/stream", reset)

        // Revoked: refused from then on, and listed as such.
        let keyID = String(key.dropFirst("sfk_test_".count).prefix(12))
        #expect(try await apiKeys(stack, ["revoke", keyID]).contains("revoked \(keyID)"))
        let refused = try await stack.request(.get, g + "/api/users/\(flow.subject)/entitlements", headers: [("X-API-Key", key)])
        #expect(refused.status == 401 && refused.bodyString.contains(#""code":"invalid_api_key""#))
        expectContract(contract, "get", "/api/users/{app_user_id}/entitlements", refused)
        let readerID = String(readOnly.dropFirst("sfk_test_".count).prefix(12))
        #expect(try await apiKeys(stack, ["revoke", readerID]).contains("revoked \(readerID)"))
        let listed = try await apiKeys(stack, ["list"])
        // Only this test's keys: the suite's other tests make keys of their own on the same stack.
        let ours = listed.split(separator: "\n").filter { $0.contains(keyID) || $0.contains(readerID) }
        #expect(ours.count == 2 && listed.contains("\(keyID)  e2e backend"), "\(listed)")
        #expect(!ours.contains { $0.contains("revoked=no") || $0.contains("last_used=never") }, "\(listed)")
    }
}
