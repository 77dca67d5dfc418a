import Foundation
import HTTPClient
import TestSupport
import Testing

/// Promotional grants through the gateway, on the contract suite's stack: a
/// grant unlocks a user with no purchase (`store: promotional`), reaches the
/// app's live stream with `cause: grant`, and `storefront revoke` ends it;
/// a read-only key is refused every write route.
extension ContractTests {
    /// `storefront grant|revoke …` against the stack's gateway with `key`, and what it printed.
    func grants(_ stack: LiveStack, key: String, _ arguments: [String]) async throws -> String {
        let output = stack.state + "/grants-\(UUID().uuidString.prefix(6)).out"
        try await ScriptRunner.run(
            try stack.binary("storefront"), arguments,
            environment: ["STOREFRONT_API_URL": stack.gateway, "STOREFRONT_API_KEY": key, "LOG_LEVEL": "error"], outputFile: output)
        return try String(contentsOfFile: output, encoding: .utf8)
    }

    @Test func aGrantUnlocksAUserWithNoPurchaseAndARevocationEndsIt() async throws {
        let stack = try self.stack
        let contract = try OpenAPIContract.repository()
        let g = stack.gateway
        let flow = try await PurchaseFlow.make(stack, provider: "lemonsqueezy")
        let writer = try #require(
            try await apiKeys(stack, ["create", "--name", "e2e support", "--scope", "entitlements:write"]).split(separator: "\n").first.map(
                String.init))
        let reader = try #require(
            try await apiKeys(stack, ["create", "--name", "e2e reader", "--scope", "entitlements:read"]).split(separator: "\n").first.map(String.init)
        )
        let grantsPath = "/api/users/{app_user_id}/grants"
        let body = #"{"entitlement":"ls_2","duration":"P30D","reason":"e2e"}"#

        // A read-only key may not write.
        let refused = try await stack.request(.post, g + "/api/users/\(flow.subject)/grants", json: body, headers: [("X-API-Key", reader)])
        #expect(refused.status == 403 && refused.bodyString.contains(#""code":"insufficient_scope""#), "\(refused.bodyString)")
        expectContract(contract, "post", grantsPath, refused)
        let unknown = try await stack.request(
            .post, g + "/api/users/\(flow.subject)/grants", json: #"{"entitlement":"gold","duration":"P30D"}"#, headers: [("X-API-Key", writer)])
        #expect(unknown.status == 422 && unknown.bodyString.contains(#""code":"unknown_entitlement""#), "\(unknown.bodyString)")
        expectContract(contract, "post", grantsPath, unknown)

        // The app is waiting on its live stream when the grant is given (a
        // poll without a cursor sees only what happens while it waits).
        let token = flow.token
        let stream = Task { try await stack.request(.get, g + "/api/entitlements/stream?wait=20", token: token).bodyString }
        try await Task.sleep(for: .seconds(1))

        // Granted, twice with one Idempotency-Key: one grant.
        let headers = [("X-API-Key", writer), ("Idempotency-Key", "e2e-\(flow.subject)")]
        let given = try await stack.request(.post, g + "/api/users/\(flow.subject)/grants", json: body, headers: headers)
        #expect(given.status == 201 || given.status == 202, "\(given.bodyString)")
        expectContract(contract, "post", grantsPath, given)
        let grant = try object(given)
        let grantID = try #require(grant["grant_id"] as? String)
        let again = try await stack.request(.post, g + "/api/users/\(flow.subject)/grants", json: body, headers: headers)
        #expect(try object(again)["grant_id"] as? String == grantID)

        // The app sees it, promotional, and so does the server key.
        let active: [String: Any] = try await stack.eventually("the grant in the entitlements") { () -> [String: Any]? in
            try await flow.entitlements().first { $0["grant_id"] as? String == grantID && $0["is_active"] as? Bool == true }
        }
        #expect(
            active["store"] as? String == "promotional" && active["provider"] as? String == "promotional" && active["source"] as? String == "grant")
        let byKey = try await stack.request(.get, g + "/api/users/\(flow.subject)/entitlements", headers: [("X-API-Key", reader)])
        expectContract(contract, "get", "/api/users/{app_user_id}/entitlements", byKey)
        #expect(byKey.bodyString.contains(grantID))

        // The app's live stream announced it with its cause.
        let streamed = try await stream.value
        #expect(streamed.contains(#""kind":"grant""#) && streamed.contains(grantID) && streamed.contains("entitlement.granted"), "\(streamed)")

        // Revoked from the command line: the access ends; a second revocation changes nothing.
        let deletePath = "/api/users/{app_user_id}/grants/{grant_id}"
        let readerDelete = try await stack.request(.delete, g + "/api/users/\(flow.subject)/grants/\(grantID)", headers: [("X-API-Key", reader)])
        #expect(readerDelete.status == 403)
        expectContract(contract, "delete", deletePath, readerDelete)
        let printed = try await grants(stack, key: writer, ["revoke", flow.subject, grantID])
        #expect(printed.contains("\(grantID) revoked"), "\(printed)")
        _ = try await stack.eventually("the grant revoked") { () -> Bool? in
            try await flow.entitlements().contains { $0["grant_id"] as? String == grantID && $0["is_active"] as? Bool == false } ? true : nil
        }
        let twice = try await stack.request(.delete, g + "/api/users/\(flow.subject)/grants/\(grantID)", headers: [("X-API-Key", writer)])
        let revokedTwice = try object(twice)
        #expect(twice.status == 200 && revokedTwice["revoked_at"] is String)
        expectContract(contract, "delete", deletePath, twice)
        let missing = try await stack.request(
            .delete, g + "/api/users/someone-else/grants/\(grantID)", headers: [("X-API-Key", writer)])
        #expect(missing.status == 404)
        expectContract(contract, "delete", deletePath, missing)

        // `storefront grant` gives one too.
        let cli = try await grants(stack, key: writer, ["grant", flow.subject, "ls_2", "--for", "7d"])
        #expect(cli.contains("grants ls_2 to \(flow.subject)"), "\(cli)")
    }
}
