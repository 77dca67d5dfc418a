import CheckoutService
import CryptoPrimitives
import Foundation
import HTTPServer
import Postgres
import Providers
import Synchronization
import Telemetry
import TestSupport
import Testing

/// Authentication on every app route through the router, with no server at
/// all: no database, broker or sandbox. A refused request must be answered
/// before anything is looked up, so the pool points at a port nothing
/// listens on and the publisher records every call; either being used
/// would show up as a 5xx or a record. `AuthTests` covers the same refusals
/// and the accepted paths against real servers.
@Suite struct AuthRouteTests {
    static let secret = Array("auth-route-tests-hs256-secret-0123456789".utf8)

    /// Fails the test if anything is published.
    final class RecordingPublisher: RecordPublisher {
        let calls = Mutex(0)
        func publish(topic: String, key: String, value: [UInt8]) async throws {
            calls.withLock { $0 += 1 }
        }
    }

    static func token(sub: String, secret: [UInt8] = secret, expiresIn: TimeInterval = 600) throws -> String {
        try JWTSigner(hs256Secret: secret).sign([
            "sub": .string(sub), "email": .string("\(sub)@example.com"),
            "exp": .int(Int(Date().timeIntervalSince1970 + expiresIn)),
        ])
    }

    @Test func everyAppRouteRefusesMissingForgedExpiredAndMalformedTokens() async throws {
        let publisher = RecordingPublisher()
        let unreachable = try PostgresConfiguration(url: "postgresql://nobody@127.0.0.1:1/none?connect_timeout=1")
        let pool = PostgresPool(configuration: unreachable)
        let app = buildCheckoutApplication(
            auth: .jwt(try JWTVerifier(key: .hs256(secret: Self.secret))), ownership: TestOwnership.proof, providers: ProviderRegistry(providers: []),
            pool: pool, publisher: publisher, logger: Logger(service: "auth-route-tests", minimumLevel: .critical))
        let routes: [(HTTPMethod, String, String?)] = [
            (.post, "/api/create-checkout", #"{"variantId":"ls_2"}"#),
            (.get, "/api/subscription/status", nil),
            (.post, "/api/subscription/cancel", #"{"subscription_code":"1"}"#),
            (.post, "/api/subscription/resume", #"{"subscription_code":"1"}"#),
        ]
        let forged = try Self.token(sub: "mallory", secret: Array("another-secret-of-at-least-32-bytes!!".utf8))
        let expired = try Self.token(sub: "late", expiresIn: -3600)
        for (method, path, json) in routes {
            for token in [nil, forged, expired, "not.a.jwt", ""] {
                var headers = HTTPHeaders()
                if let token { headers.add(name: "Authorization", value: "Bearer \(token)") }
                if json != nil { headers.add(name: "Content-Type", value: "application/json") }
                let request = try HTTPRequest(method: method, target: path, headers: headers, body: Array((json ?? "").utf8))
                let response = await app.respond(to: request, logger: Logger(service: "auth-route-tests", minimumLevel: .critical))
                #expect(response.status == .unauthorized, "\(method) \(path), token \(token.map { "\($0.prefix(12))…" } ?? "none")")
                #expect(String(decoding: response.body, as: UTF8.self).hasPrefix(#"{"success":false,"error":"#))
            }
        }
        #expect(publisher.calls.withLock { $0 } == 0, "a refused request published something")
        await pool.close()
    }
}
