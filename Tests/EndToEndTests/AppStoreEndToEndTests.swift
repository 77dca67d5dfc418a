import Foundation
import HTTPClient
import Postgres
import TestSupport
import Testing

/// App Store link-out through the gateway, on the contract suite's stack
/// (which runs with deploy/config/app-store-policy.json and the bundle id
/// `com.example.storefront`): the policy at `GET /api/app-config` with its
/// tag, and create-checkout's storefront and external purchase token checked,
/// kept on the checkout, and refused to a second user.
extension ContractTests {
    /// A token as StoreKit gives it: Base64URL JSON, no padding.
    static func externalPurchaseToken(id: String, bundleID: String = "com.example.storefront", expiresIn: TimeInterval = 86_400) -> String {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let json = #"""
            {"externalPurchaseId":"\#(id)","tokenCreationDate":\#(now - 1000),"appAppleId":1234567890,"bundleId":"\#(bundleID)",\#
            "tokenExpirationDate":\#(now + Int64(expiresIn * 1000)),"tokenType":"ACQUISITION"}
            """#
        return Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test func theAppConfigIsTheShippedPolicyAndRevalidates() async throws {
        let stack = try self.stack
        let contract = try OpenAPIContract.repository()
        let first = try await stack.request(.get, stack.gateway + "/api/app-config")
        #expect(first.status == 200, "\(first.bodyString)")
        expectContract(contract, "get", "/api/app-config", first)
        let linkOut = try #require(try object(first)["link_out"] as? [String: Any])
        let shipped = try #require(
            try JSONSerialization.jsonObject(
                with: Data(
                    contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                        .appendingPathComponent("deploy/config/app-store-policy.json"))) as? [String: Any])
        #expect(linkOut["version"] as? String == shipped["version"] as? String && linkOut["default"] as? String == "not_allowed")
        let etag = try #require(first.headers["ETag"])
        let again = try await stack.request(.get, stack.gateway + "/api/app-config", headers: [("If-None-Match", etag)])
        #expect(again.status == 304 && again.body.isEmpty)
    }

    @Test func aCheckoutKeepsItsStorefrontAndTokenAndTheTokenIsOneUsers() async throws {
        let stack = try self.stack
        let contract = try OpenAPIContract.repository()
        let buyer = try await PurchaseFlow.make(stack, provider: "stripe")
        let product = try await buyer.subscriptionProduct()
        func create(_ flow: PurchaseFlow, _ fields: String) async throws -> HTTPClientResponse {
            let body = #"{"variantId":"\#(product.variantID)","productId":"\#(product.productID)",\#(fields)}"#
            let response = try await stack.request(.post, stack.gateway + "/api/create-checkout", token: flow.token, json: body)
            expectContract(contract, "post", "/api/create-checkout", response)
            return response
        }
        func code(_ response: HTTPClientResponse) -> String? { (try? object(response))?["code"] as? String }

        // What the policy refuses, before any provider is asked.
        let korea = try await create(buyer, #""storefront":"KOR""#)
        #expect(korea.status == 403 && code(korea) == "link_out_not_allowed", "\(korea.bodyString)")
        let noToken = try await create(buyer, #""storefront":"NLD""#)
        #expect(noToken.status == 422 && code(noToken) == "external_purchase_token_required", "\(noToken.bodyString)")
        let foreignToken = Self.externalPurchaseToken(id: "e2e-\(buyer.subject)-f", bundleID: "com.other.app")
        let foreign = try await create(buyer, #""storefront":"NLD","externalPurchaseToken":"\#(foreignToken)""#)
        #expect(foreign.status == 422 && code(foreign) == "external_purchase_token_foreign", "\(foreign.bodyString)")

        // The Netherlands with a token: the checkout opens and keeps both.
        let tokenID = "e2e-\(buyer.subject)"
        let token = Self.externalPurchaseToken(id: tokenID)
        let opened = try await create(buyer, #""storefront":"nld","externalPurchaseToken":"\#(token)""#)
        #expect(opened.status == 200, "\(opened.bodyString)")
        let checkoutID = try #require(try object(opened)["checkoutId"] as? String)
        let kept = try await stack.eventually("the checkout projected with its storefront") { () -> [String]? in
            try await stack.withDatabase { pool in
                let rows = try await pool.query(
                    """
                    SELECT app_store_storefront, external_purchase_id, external_purchase_token_type FROM checkouts
                    WHERE checkout_id = \(checkoutID)
                    """)
                return try rows.first.map { row in
                    let (storefront, id, type) = try row.decode((String?, String?, String?).self)
                    return [storefront ?? "-", id ?? "-", type ?? "-"]
                }
            }
        }
        #expect(kept == ["NLD", tokenID, "ACQUISITION"])
        // The same user may send it again; another may not.
        #expect(try await create(buyer, #""storefront":"NLD","externalPurchaseToken":"\#(token)""#).status == 200)
        let other = try await PurchaseFlow.make(stack, provider: "stripe")
        let reused = try await create(other, #""storefront":"NLD","externalPurchaseToken":"\#(token)""#)
        #expect(reused.status == 409 && code(reused) == "external_purchase_token_reused", "\(reused.bodyString)")

        // The United States needs no token; the storefront is kept all the same.
        let us = try await create(other, #""storefront":"USA""#)
        #expect(us.status == 200, "\(us.bodyString)")
    }
}
