import CheckoutService
import Foundation
import HTTPServer
import Testing

/// `POST /api/users/{app_user_id}/refunds` through the router, no server:
/// who may call it, and what is refused before anything is read. The rules
/// past that are ``RefundCommanderTests``'; the live answers are the end-to-end suite's.
@Suite struct RefundRouteTests {
    static let path = "/api/users/user-1/refunds"
    static let body = #"{"purchase":{"provider":"lemonsqueezy","type":"order","id":"7"},"amount":100}"#

    static func post(
        _ setup: ServerRouteAuthTests.Setup, _ headers: [(String, String)], body: String = body, path: String = path
    ) async throws -> HTTPResponse {
        var fields = HTTPHeaders([("Content-Type", "application/json")])
        for (name, value) in headers { fields.add(name: name, value: value) }
        let request = try HTTPRequest(method: .post, target: path, headers: fields, body: Array(body.utf8))
        return await setup.app.respond(to: request, logger: ServerRouteAuthTests.logger)
    }

    @Test func onlyAKeyWithThePurchasesRefundScopeMayAsk() async throws {
        try await ServerRouteAuthTests.withApp { setup in
            for scopes: Set<APIKeyScope> in [[.entitlementsRead], [.subscriptionsManage], [.entitlementsRead, .subscriptionsManage], []] {
                let key = try await ServerRouteAuthTests.key(setup.keys, scopes: scopes)
                let response = try await Self.post(setup, [("X-API-Key", key.text), ("Idempotency-Key", "k1")])
                #expect(response.status == .forbidden && ServerRouteAuthTests.code(response) == "insufficient_scope", "\(scopes)")
            }
            let refunder = try await ServerRouteAuthTests.key(setup.keys, scopes: [.purchasesRefund])
            // Past the scope, nothing is enabled in this app: refused before any read.
            let response = try await Self.post(setup, [("Authorization", "Bearer \(refunder.text)"), ("Idempotency-Key", "k1")])
            #expect(response.status == .serviceUnavailable && ServerRouteAuthTests.code(response) == "provider_disabled")
            // And the refund key reads nothing: its scope includes no other.
            let read = try await ServerRouteAuthTests.get(setup.app, "/api/users/user-1/entitlements", [("X-API-Key", refunder.text)])
            #expect(read.status == .forbidden && ServerRouteAuthTests.code(read) == "insufficient_scope")
        }
    }

    @Test func aKeyMakesAtMost30RefundRequestsAMinute() async throws {
        try await ServerRouteAuthTests.withApp { setup in
            let key = try await ServerRouteAuthTests.key(setup.keys, scopes: [.purchasesRefund])
            for attempt in 1...30 {
                let response = try await Self.post(setup, [("X-API-Key", key.text), ("Idempotency-Key", "k\(attempt)")])
                #expect(response.status != .tooManyRequests, "attempt \(attempt)")
            }
            let over = try await Self.post(setup, [("X-API-Key", key.text), ("Idempotency-Key", "k31")])
            #expect(over.status == .tooManyRequests && ServerRouteAuthTests.code(over) == "rate_limited" && over.headers["Retry-After"] != nil)
        }
    }

    @Test func noKeyOrAnAppTokenIsRefused() async throws {
        try await ServerRouteAuthTests.withApp { setup in
            let anonymous = try await Self.post(setup, [("Idempotency-Key", "k1")])
            #expect(anonymous.status == .unauthorized)
            let token = try AuthRouteTests.token(sub: "user-1", secret: ServerRouteAuthTests.secret)
            let app = try await Self.post(setup, [("Authorization", "Bearer \(token)"), ("Idempotency-Key", "k1")])
            #expect(app.status == .forbidden && ServerRouteAuthTests.code(app) == "api_key_required")
        }
    }

    @Test func badBodiesAndAMissingKeyAre400() async throws {
        try await ServerRouteAuthTests.withApp { setup in
            let key = try await ServerRouteAuthTests.key(setup.keys, scopes: [.purchasesRefund])
            let auth = ("X-API-Key", key.text)
            let cases: [(String, [(String, String)], String?)] = [
                (#"{"purchase":{"provider":"lemonsqueezy","type":"order","id":"7"},"amount":-5}"#, [("Idempotency-Key", "k")], "invalid_amount"),
                (#"{"purchase":{"provider":"lemonsqueezy","type":"gift","id":"7"}}"#, [("Idempotency-Key", "k")], "invalid_purchase"),
                (#"{"purchase":{"provider":"paypal","type":"order","id":"7"}}"#, [("Idempotency-Key", "k")], "invalid_purchase"),
                (#"{"purchase":{"provider":"lemonsqueezy","type":"order","id":""}}"#, [("Idempotency-Key", "k")], "invalid_purchase"),
                (#"{"amount":5}"#, [("Idempotency-Key", "k")], nil),
                (#"{"purchase":{"provider":"lemonsqueezy","type":"order","id":"7"},"amount":"5"}"#, [("Idempotency-Key", "k")], nil),
                (Self.body, [], "idempotency_key_required"),
            ]
            for (body, headers, code) in cases {
                let response = try await Self.post(setup, [auth] + headers, body: body)
                #expect(response.status == .badRequest, "\(body): \(response.status)")
                if let code { #expect(ServerRouteAuthTests.code(response) == code, "\(body)") }
            }
            let longUser = try await Self.post(
                setup, [auth, ("Idempotency-Key", "k")], path: "/api/users/\(String(repeating: "u", count: 300))/refunds")
            #expect(ServerRouteAuthTests.code(longUser) == "invalid_app_user_id")
        }
    }
}
