import Foundation
import TestSupport
import Testing

/// The gateway behind a TLS-terminating proxy, the topology deploy/README.md
/// requires: the front (`scripts/tls-front.sh`, nginx with a certificate made
/// at test time) appends each client's address to X-Forwarded-For, and the
/// gateway trusts that header from the front's address alone
/// (`GATEWAY_TRUSTED_PROXIES=127.0.0.1/32`). Clients are curl bound to their
/// own loopback addresses (127.0.0.2, …), so each has a source address of its
/// own. The app rate is one request a minute, so a bucket emptied by the
/// burst (100) stays empty for the test's few seconds. Last, apps and
/// webhooks count open requests in separate zones: requests held open
/// (``HeldRequests``) fill one address's app cap, and its webhooks still pass.
@Suite(.serialized, .liveStack(["GATEWAY_TRUSTED_PROXIES": "127.0.0.1/32", "GATEWAY_APP_RATE": "1r/m", "RECONCILER_REPLICAS": "0"]))
struct GatewayEdgeEndToEndTests {
    /// More than the burst (100) plus the one request the rate allows at once.
    static let flood = 110
    /// The template's per-address cap on open requests, the same number for apps and for webhooks.
    static let connectionCap = 256

    @Test("one abusive client behind the TLS front gets 429 in the API's shape; another client and the provider webhooks are still served")
    func abusiveClientIsLimitedAlone() async throws {
        let stack = try LiveStack.required()
        let front = try await TLSFront.start(stack)
        let abuser = EdgeClient(stack, address: "127.0.0.2", trusting: front.certificate)

        let statuses = try await abuser.statuses(front.url + "/api/products", count: Self.flood)
        let firstRefusal = try #require(statuses.firstIndex(of: 429), "the flood was never limited: \(statuses)")
        #expect(statuses[..<firstRefusal].allSatisfy { $0 == 200 } && statuses[firstRefusal...].allSatisfy { $0 == 429 }, "\(statuses)")
        #expect(firstRefusal <= 101, "more than the burst got through: \(firstRefusal)")

        let refused = try await abuser.send(front.url + "/api/products")
        #expect(refused.status == 429)
        let error = try JSONDecoder().decode(APIError.self, from: Data(refused.body.utf8))
        #expect(!error.success && !error.error.isEmpty, "\(refused.body)")

        // Through the same front, so the same TCP peer at the gateway: only
        // the forwarded address tells the two clients apart.
        let other = try await EdgeClient(stack, address: "127.0.0.3", trusting: front.certificate).send(front.url + "/api/products")
        #expect(other.status == 200, "another client was refused with the abuser: \(other.body.prefix(200))")
        #expect(other.body.contains(#""success":true"#))

        // Webhooks are never rate-limited and count in a zone of their own:
        // from the provider's address, and even from the limited one.
        for address in ["127.0.0.9", "127.0.0.2"] {
            let provider = EdgeClient(stack, address: address, trusting: front.certificate)
            for delivery in try SignedWebhook.both() {
                let answer = try await provider.send(front.url + delivery.path, body: delivery.body, headers: delivery.headers)
                #expect(answer.status == 200, "\(delivery.path) from \(address): \(answer.status) \(answer.body.prefix(200))")
            }
        }
    }

    @Test("every answer carries the security headers, nginx's own errors too; HSTS only behind the TLS front")
    func securityHeadersOnEveryAnswer() async throws {
        let stack = try LiveStack.required()
        let front = try await TLSFront.start(stack)
        let client = EdgeClient(stack, address: "127.0.0.6", trusting: front.certificate)
        let policy = "default-src 'none'; frame-ancestors 'none'"
        // A service's answer through the front (which says X-Forwarded-Proto: https), and the same directly.
        let viaFront = try await client.head(front.url + "/api/products")
        let direct = try await client.head(stack.gateway + "/api/products")
        // Answers nginx gives itself: a method no API path takes (405, with Allow), a path that is not the API's (404).
        let trace = try await client.head(stack.gateway + "/api/products", method: "TRACE")
        let unknown = try await client.head(stack.gateway + "/api/products", method: "DELETE")
        let statuses: [Int] = [viaFront.status, direct.status, trace.status]
        #expect(statuses == [200, 200, 405], "\(statuses)")
        #expect(unknown.status == 405 || unknown.status == 404)
        for (name, answer) in [("front", viaFront), ("direct", direct), ("TRACE", trace), ("DELETE", unknown)] {
            #expect(answer.headers["x-content-type-options"] == "nosniff", "\(name): \(answer.headers)")
            #expect(answer.headers["x-frame-options"] == "DENY", "\(name): \(answer.headers)")
            #expect(answer.headers["content-security-policy"] == policy, "\(name): \(answer.headers)")
        }
        #expect(trace.headers["allow"] == "GET, HEAD", "the 405's own header is kept: \(trace.headers)")
        #expect(viaFront.headers["strict-transport-security"] == "max-age=31536000", "\(viaFront.headers)")
        #expect(direct.headers["strict-transport-security"] == nil, "plain HTTP to the gateway: no HSTS")
    }

    @Test("a forged X-Forwarded-For from a peer that is not a trusted proxy is ignored")
    func forgedForwardedForGetsNoFreshBucket() async throws {
        let stack = try LiveStack.required()
        let front = try await TLSFront.start(stack)
        let abuser = EdgeClient(stack, address: "127.0.0.5", trusting: front.certificate)
        let statuses = try await abuser.statuses(front.url + "/api/products", count: Self.flood)
        try #require(statuses.last == 429, "the flood was never limited: \(statuses)")

        let forged = [("X-Forwarded-For", "198.51.100.7")]
        // Straight to the gateway, claiming another address: still its own bucket.
        let direct = try await abuser.send(stack.gateway + "/api/products", headers: forged)
        #expect(direct.status == 429, "a forged header from an untrusted peer gave a fresh bucket: \(direct.body.prefix(200))")
        // Through the front, which appends the real address: the rightmost untrusted entry counts.
        let chained = try await abuser.send(front.url + "/api/products", headers: forged)
        #expect(chained.status == 429, "a forged header passed on by the front gave a fresh bucket: \(chained.body.prefix(200))")
        // Nor can a fresh client move itself into the limited client's bucket.
        let bystander = EdgeClient(stack, address: "127.0.0.6", trusting: front.certificate)
        let claimed = try await bystander.send(stack.gateway + "/api/products", headers: [("X-Forwarded-For", "127.0.0.5")])
        #expect(claimed.status == 200, "\(claimed.body.prefix(200))")
    }

    @Test("an address whose app requests fill its connection cap still gets its webhooks accepted")
    func webhooksHaveAConnectionCapOfTheirOwn() async throws {
        let stack = try LiveStack.required()
        let gateway = try #require(URL(string: stack.gateway))
        // Straight to the gateway: the peer is the client address, as it is for
        // everyone behind a front the gateway does not trust.
        let address = "127.0.0.7"
        let held = try HeldRequests(
            count: Self.connectionCap, from: address, to: try #require(gateway.host), port: try #require(gateway.port), path: "/checkout/complete")
        defer { held.release() }
        let client = EdgeClient(stack, address: address)
        // /checkout/complete has no rate limit: a 429 there is the connection cap.
        let refused = try await stack.eventually(timeout: .seconds(30), "\(address)'s held requests to fill its app connection cap") {
            let answer = try await client.send(stack.gateway + "/checkout/complete")
            return answer.status == 429 ? answer : nil
        }
        #expect(refused.body.contains(#""success":false"#))
        for delivery in try SignedWebhook.both() {
            let answer = try await client.send(stack.gateway + delivery.path, body: delivery.body, headers: delivery.headers)
            #expect(answer.status == 200, "\(delivery.path) beside a full app cap: \(answer.status) \(answer.body.prefix(200))")
        }
    }
}

/// The API's error shape, `{"success":false,"error":"…"}`.
private struct APIError: Decodable {
    let success: Bool
    let error: String
}
