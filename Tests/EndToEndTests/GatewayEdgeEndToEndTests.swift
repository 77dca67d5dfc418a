import Crypto
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
/// burst (100) stays empty for the test's few seconds.
@Suite(.serialized, .liveStack(["GATEWAY_TRUSTED_PROXIES": "127.0.0.1/32", "GATEWAY_APP_RATE": "1r/m", "RECONCILER_REPLICAS": "0"]))
struct GatewayEdgeEndToEndTests {
    /// More than the burst (100) plus the one request the rate allows at once.
    static let flood = 110

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
}

/// The API's error shape, `{"success":false,"error":"…"}`.
private struct APIError: Decodable {
    let success: Bool
    let error: String
}

/// The TLS front of one stack, stopped with it (its pid file is in the stack's pids/).
private struct TLSFront {
    let url: String
    let certificate: String

    static func start(_ stack: LiveStack) async throws -> TLSFront {
        let folder = stack.state + "/tls-front-\(UUID().uuidString.prefix(6))"
        let gateway = try #require(URL(string: stack.gateway))
        let upstream = "\(try #require(gateway.host)):\(try #require(gateway.port))"
        try await ScriptRunner.runScript(
            "tls-front.sh", ["start", folder, upstream],
            environment: ["TLS_FRONT_PID_FILE": stack.state + "/pids/\(URL(fileURLWithPath: folder).lastPathComponent).pid"])
        let settings = try TestEnvironment.readEnvFile(folder + "/tls-front.env")
        return TLSFront(url: try #require(settings["TLS_FRONT_URL"]), certificate: try #require(settings["TLS_FRONT_CA"]))
    }
}

/// A client with its own source address: curl bound to a loopback address
/// (all of 127.0.0.0/8 is local on Linux), trusting the front's certificate.
private struct EdgeClient {
    let stack: LiveStack
    let address: String
    let certificate: String

    init(_ stack: LiveStack, address: String, trusting certificate: String) {
        self.stack = stack
        self.address = address
        self.certificate = certificate
    }

    /// The status of each of `count` GETs of `url`, sent one after another on one connection.
    func statuses(_ url: String, count: Int) async throws -> [Int] {
        let output = try await curl(
            ["--write-out", "%{http_code}\\n"] + Array(repeating: [url, "--output", "/dev/null"], count: count).flatMap { $0 })
        return output.split(separator: "\n").compactMap { Int($0) }
    }

    /// One request; a body makes it a POST.
    func send(_ url: String, body: [UInt8]? = nil, headers: [(String, String)] = []) async throws -> (status: Int, body: String) {
        let scratch = stack.state + "/curl-\(UUID().uuidString.prefix(8))"
        var arguments = ["--output", scratch + ".body", "--write-out", "%{http_code}"]
        for (name, value) in headers { arguments += ["--header", "\(name): \(value)"] }
        if let body {
            try Data(body).write(to: URL(fileURLWithPath: scratch + ".request"))
            arguments += ["--data-binary", "@" + scratch + ".request"]
        }
        let status = try await curl(arguments + [url])
        let answer = (try? String(contentsOfFile: scratch + ".body", encoding: .utf8)) ?? ""
        return (try #require(Int(status.trimmingCharacters(in: .whitespacesAndNewlines)), "curl wrote no status: \(status)"), answer)
    }

    private func curl(_ arguments: [String]) async throws -> String {
        let output = stack.state + "/curl-\(UUID().uuidString.prefix(8)).out"
        try await ScriptRunner.run(
            "/usr/bin/env", ["curl", "--silent", "--show-error", "--max-time", "20", "--interface", address, "--cacert", certificate] + arguments,
            outputFile: output)
        return try String(contentsOfFile: output, encoding: .utf8)
    }
}

/// Webhooks as the providers send them, signed with the sandbox's secrets
/// (scripts/stack.sh gives the receivers `ls_sandbox_webhook_secret` and
/// `sk_test_sandbox_secret`), each with a fresh id so none is a duplicate.
private struct SignedWebhook {
    let path: String
    let body: [UInt8]
    let headers: [(String, String)]

    static func both() throws -> [SignedWebhook] {
        let lemonSqueezy = try fresh(
            "lemonsqueezy.webhook.subscription_created.synthetic.json", "7c1f3a52-9d0e-4b8a-a3f1-2e5d6c7b8a91", UUID().uuidString.lowercased())
        let paystack = try fresh(
            "paystack.webhook.charge.success.json", "\"id\":302961,", "\"id\":\(UInt64.random(in: 1_000_000_000...9_999_999_999)),")
        return [
            SignedWebhook(
                path: "/api/webhooks/lemonsqueezy", body: lemonSqueezy,
                headers: [
                    ("Content-Type", "application/json"),
                    ("X-Signature", Hex.encode(HMAC.sha256(key: Array("ls_sandbox_webhook_secret".utf8), message: lemonSqueezy))),
                ]),
            SignedWebhook(
                path: "/api/webhooks/paystack", body: paystack,
                headers: [
                    ("Content-Type", "application/json"),
                    ("x-paystack-signature", Hex.encode(HMAC.sha512(key: Array("sk_test_sandbox_secret".utf8), message: paystack))),
                ]),
        ]
    }

    private static func fresh(_ fixture: String, _ original: String, _ replacement: String) throws -> [UInt8] {
        let text = try Fixture.text(fixture)
        try #require(text.contains(original), "\(fixture) no longer holds \(original)")
        return Array(text.replacingOccurrences(of: original, with: replacement).utf8)
    }
}
