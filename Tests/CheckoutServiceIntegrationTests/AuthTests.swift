import CheckoutService
import CryptoPrimitives
import Foundation
import HTTPServer
import ServiceRuntime
import Testing
import ServiceSettings

/// Tokens on every app route: missing, forged, expired, email mismatch, RS256.
@Suite struct AuthTests {
    @Test func hs256Failures() async throws {
        try await Harness.with { harness in
            let routes: [(HTTPMethod, String, String?)] = [
                (.post, "/api/create-checkout", "{\"variantId\":\"ls_2\"}"),
                (.get, "/api/subscription/status", nil),
                (.post, "/api/subscription/cancel", "{\"subscription_code\":\"1\"}"),
                (.post, "/api/subscription/resume", "{\"subscription_code\":\"1\"}"),
            ]
            let forged = try Harness.token(sub: "mallory", email: "m@example.com", secret: Array("another-secret-of-at-least-32-bytes!!".utf8))
            let expired = try Harness.token(sub: "late", email: "l@example.com", expiresIn: -3600)
            for (method, path, json) in routes {
                for token in [nil, forged, expired, "not.a.jwt"] {
                    let response = try await harness.request(method, path, token: token, json: json)
                    #expect(response.status == .unauthorized, "\(path) with \(token == nil ? "no token" : "bad token"): \(response.text)")
                    #expect(try response.json()["success"] as? Bool == false)
                }
            }
            let expiredAnswer = try await harness.request(.get, "/api/subscription/status", token: expired)
            #expect(expiredAnswer.text.contains("expired"))

            let token = try Harness.token(sub: "alice", email: "alice@example.com")
            let mismatch = try await harness.createCheckout(token: token, email: "bob@example.com", variant: "ls_2")
            #expect(mismatch.status == .forbidden)
            let caseOnly = try await harness.createCheckout(token: token, email: "ALICE@Example.COM", variant: "ls_2")
            #expect(caseOnly.status == .ok, "\(caseOnly.text)")
            let statusMismatch = try await harness.request(.get, "/api/subscription/status?email=bob%40example.com", token: token)
            #expect(statusMismatch.status == .forbidden)
            let statusOK = try await harness.request(.get, "/api/subscription/status?email=Alice%40example.com", token: token)
            #expect(statusOK.status == .ok)
        }
    }

    @Test func rs256WithOpenSSLKeyPair() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(TestNames.unique("rsa")).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await runCommand(
            "/usr/bin/openssl", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", directory + "/private.pem"])
        try await runCommand("/usr/bin/openssl", ["pkey", "-in", directory + "/private.pem", "-pubout", "-out", directory + "/public.pem"])
        // The service reads the key the way the executable does: from AUTH_JWT_PUBLIC_KEY_FILE.
        var reader = ConfigReader(Environment(["AUTH_JWT_PUBLIC_KEY_FILE": directory + "/public.pem", "AUTH_JWT_ISSUER": "https://id.example.com"]))
        let auth = AuthConfiguration.fromEnvironment(&reader, mode: .test)
        try reader.finish()
        #expect(!auth.isDisabled)
        let signer = try JWTSigner(rs256PrivateKeyPEM: String(contentsOfFile: directory + "/private.pem", encoding: .utf8))
        let exp = JOSEValue.int(Int(Date().timeIntervalSince1970) + 600)
        let good = try signer.sign(["sub": "rsa-user", "email": "rsa@example.com", "iss": "https://id.example.com", "exp": exp])
        let wrongIssuer = try signer.sign(["sub": "rsa-user", "email": "rsa@example.com", "iss": "https://evil.example.com", "exp": exp])
        let hsToken = try Harness.token(sub: "rsa-user", email: "rsa@example.com")
        try await Harness.with(auth: auth) { harness in
            #expect(try await harness.request(.get, "/api/subscription/status", token: good).status == .ok)
            #expect(try await harness.request(.get, "/api/subscription/status", token: wrongIssuer).status == .unauthorized)
            // An HS256 token cannot pass where RS256 is configured (no algorithm confusion).
            #expect(try await harness.request(.get, "/api/subscription/status", token: hsToken).status == .unauthorized)
            let created = try await harness.createCheckout(token: good, email: nil, variant: "ls_1")
            #expect(created.status == .ok, "\(created.text)")
        }
    }

    @Test func disabledAuthUsesTheEmail() async throws {
        try await Harness.with(auth: .disabled) { harness in
            let created = try await harness.createCheckout(token: nil, email: "Dev@Example.com", variant: "ls_2")
            #expect(created.status == .ok, "\(created.text)")
            let noEmail = try await harness.request(.get, "/api/subscription/status", token: nil)
            #expect(noEmail.status == .unauthorized)
            #expect(try await harness.request(.get, "/api/subscription/status?email=dev%40example.com", token: nil).status == .ok)
        }
    }
}

/// Runs a program and waits for it off the cooperative pool (posix_spawn +
/// waitpid: Foundation's `Process` has been seen to hang here).
func runCommand(_ executable: String, _ arguments: [String]) async throws {
    struct CommandFailed: Error, CustomStringConvertible { let description: String }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    guard posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0 else {
        throw CommandFailed(description: "cannot start \(executable)")
    }
    let spawned = pid
    let status: Int32 = await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            var status: Int32 = 0
            while waitpid(spawned, &status, 0) < 0, errno == EINTR {}
            continuation.resume(returning: status)
        }
    }
    guard status == 0 else { throw CommandFailed(description: "\(executable) \(arguments.first ?? "") exited with status \(status)") }
}
