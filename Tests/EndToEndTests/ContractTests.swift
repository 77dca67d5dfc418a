@testable import SeedModels
import Foundation
import HTTPClient
import TestSupport
import Testing

/// Every answer the gateway gives, checked against `deploy/api/openapi.json`
/// (served at /api/openapi.json): an answer whose status or body the
/// document does not describe fails the test.
@Suite(.serialized, .liveStack()) struct ContractTests {
    var stack: LiveStack { get throws { try LiveStack.required() } }

    func expectContract(
        _ contract: OpenAPIContract, _ method: String, _ template: String, _ response: HTTPClientResponse,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let problems = contract.problems(
            method: method, path: template, status: response.status,
            contentType: response.headers["Content-Type"], body: response.body)
        #expect(problems.isEmpty, "\(problems.joined(separator: "; ")) — body: \(response.bodyString.prefix(300))", sourceLocation: sourceLocation)
    }

    @Test func theServedDocumentIsTheRepositorysAndEveryAnswerMatchesIt() async throws {
        let stack = try self.stack
        let contract = try OpenAPIContract.repository()
        let served = try await stack.request(.get, stack.gateway + "/api/openapi.json")
        #expect(served.status == 200)
        let repository = try JSONSerialization.jsonObject(with: Data(contentsOf: OpenAPIContract.repositoryFile)) as? NSDictionary
        #expect(
            (try JSONSerialization.jsonObject(with: Data(served.body)) as? NSDictionary) == repository, "the gateway serves the repository's document"
        )

        let flow = try await PurchaseFlow.make(stack, provider: "lemonsqueezy")
        let g = stack.gateway
        let products = try await stack.request(.get, g + "/api/products")
        expectContract(contract, "get", "/api/products", products)
        let etag = try #require(products.headers["ETag"])
        expectContract(contract, "get", "/api/products", try await stack.request(.get, g + "/api/products", headers: [("If-None-Match", etag)]))
        expectContract(contract, "get", "/api/products/{id}", try await stack.request(.get, g + "/api/products/ls_does-not-exist"))

        expectContract(contract, "post", "/api/create-checkout", try await stack.request(.post, g + "/api/create-checkout", json: "{}"))
        expectContract(
            contract, "post", "/api/create-checkout",
            try await stack.request(.post, g + "/api/create-checkout", token: flow.token, json: "{\"nope\":1}"))
        expectContract(
            contract, "post", "/api/create-checkout",
            try await stack.request(
                .post, g + "/api/create-checkout", token: flow.token,
                json: #"{"variantId":"ls_999999999"}"#))
        for path in ["/api/entitlements", "/api/subscription/status"] {
            expectContract(contract, "get", path, try await stack.request(.get, g + path))
            expectContract(contract, "get", path, try await stack.request(.get, g + path, token: flow.token))
        }
        expectContract(
            contract, "get", "/api/subscription/status",
            try await stack.request(.get, g + "/api/subscription/status?email=someone-else@example.com", token: flow.token))
        for action in ["cancel", "resume"] {
            expectContract(
                contract, "post", "/api/subscription/\(action)",
                try await stack.request(.post, g + "/api/subscription/\(action)", token: flow.token, json: #"{"subscription_code":"404404"}"#))
            expectContract(
                contract, "post", "/api/subscription/\(action)",
                try await stack.request(.post, g + "/api/subscription/\(action)", token: flow.token, json: #"{"subscription_code":""}"#))
        }
        expectContract(contract, "get", "/api/subscription/portal", try await stack.request(.get, g + "/api/subscription/portal", token: flow.token))
        expectContract(
            contract, "get", "/api/subscription/portal",
            try await stack.request(.get, g + "/api/subscription/portal?subscription_code=404404", token: flow.token))
        expectContract(
            contract, "post", "/api/webhooks/{provider}",
            try await stack.request(.post, g + "/api/webhooks/lemonsqueezy", json: #"{"meta":{"event_name":"order_created"}}"#))
        expectContract(contract, "post", "/api/webhooks/{provider}", try await stack.request(.post, g + "/api/webhooks/nobody", json: "{}"))

        // A whole purchase: checkout, status and entitlements with data, cancel, portal.
        let product = try await flow.subscriptionProduct()
        let created = try await stack.request(
            .post, g + "/api/create-checkout", token: flow.token,
            json: #"{"customerEmail":"\#(flow.email)","variantId":"\#(product.variantID)","productId":"\#(product.productID)"}"#)
        expectContract(contract, "post", "/api/create-checkout", created)
        try await flow.pay(checkoutURL: try stack.decode(SeedLemonSqueezy.CheckoutResponse.self, created).checkoutUrl)
        let (active, _) = try await flow.waitUntil("active") { seed, _ in seed.active }
        let code = try #require(active.subscriptionCode)
        for path in ["/api/entitlements", "/api/subscription/status"] {
            expectContract(contract, "get", path, try await stack.request(.get, g + path, token: flow.token))
        }
        expectContract(
            contract, "get", "/api/subscription/portal",
            try await stack.request(.get, g + "/api/subscription/portal?subscription_code=\(code)", token: flow.token))
        expectContract(
            contract, "post", "/api/subscription/cancel",
            try await stack.request(.post, g + "/api/subscription/cancel", token: flow.token, json: #"{"subscription_code":"\#(code)"}"#))
        expectContract(contract, "get", "/api/openapi.json", served)
        expectContract(contract, "get", "/checkout/complete", try await stack.request(.get, g + "/checkout/complete?reference=abc"))

        // What the gateway itself refuses is in the API's error shape, never nginx's HTML.
        let huge = try await stack.request(.get, g + "/api/products", headers: [("X-Padding", String(repeating: "p", count: 40_000))])
        #expect(
            huge.status == 400 && huge.bodyString == #"{"success":false,"error":"Malformed request","code":"bad_request"}"#,
            "\(huge.status) \(huge.bodyString.prefix(200))")
        let body = String(repeating: "x", count: 2 << 20)
        let tooLarge = try await stack.request(.post, g + "/api/webhooks/lemonsqueezy", json: body)
        #expect(tooLarge.status == 413 && tooLarge.headers["Content-Type"]?.hasPrefix("application/json") == true, "\(tooLarge.status)")
        expectContract(contract, "post", "/api/webhooks/{provider}", tooLarge)
    }
}

/// The contract check itself refuses what the document does not describe.
@Suite struct ContractCheckTests {
    @Test func answersOutsideTheDocumentAreProblems() throws {
        let contract = try OpenAPIContract.repository()
        let json = "application/json"
        func problems(_ status: Int, _ body: String, path: String = "/api/subscription/status") -> [String] {
            contract.problems(method: "get", path: path, status: status, contentType: json, body: Array(body.utf8))
        }
        #expect(!problems(418, #"{"success":false,"error":"x"}"#).isEmpty, "an undocumented status")
        #expect(!problems(401, #"{"success":false}"#).isEmpty, "an error without its message")
        #expect(!problems(401, #"{"success":true,"error":"x"}"#).isEmpty, "success must be false")
        #expect(!problems(200, #"{"active":"yes"}"#).isEmpty, "a wrong type and missing keys")
        #expect(!problems(401, #"{"success":false,"error":"Missing bearer token"}"#).isEmpty, "an error without its code")
        #expect(problems(401, #"{"success":false,"error":"Missing bearer token","code":"unauthorized"}"#).isEmpty)
        let entitlement =
            #"{"identifier":"p","is_active":1,"expires_at":null,"will_renew":false,"period_type":"normal","product_id":"ls_1","provider":"lemonsqueezy","source":"purchase","latest_purchase_at":null,"original_purchase_at":null,"unsubscribe_detected_at":null,"billing_issue_detected_at":null,"sandbox":true,"dispute_detected_at":null,"refunded_at":null,"store":"lemonsqueezy","grant_id":null}"#
        #expect(!problems(200, #"{"success":true,"entitlements":[\#(entitlement)]}"#, path: "/api/entitlements").isEmpty, "1 is not a boolean")
        #expect(
            problems(
                200, #"{"success":true,"entitlements":[\#(entitlement.replacingOccurrences(of: "\"is_active\":1", with: "\"is_active\":true"))]}"#,
                path: "/api/entitlements"
            ).isEmpty)
        #expect(!contract.problems(method: "delete", path: "/api/products", status: 200, contentType: json, body: []).isEmpty)
    }
}
