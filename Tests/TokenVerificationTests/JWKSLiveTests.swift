import Timing
import ServiceSettings
import CryptoPrimitives
import Foundation
import HTTPClient
import Telemetry
import TestSupport
import Testing
import TokenVerification

/// The key sets against a real JWKS endpoint on loopback (libcurl client,
/// libmicrohttpd server): two keys, a rotation while the verifier runs, an
/// outage, and a flood of forged `kid`s counted by the server.
@Suite struct JWKSLiveTests {
    static func verifier(_ server: LocalJWKSServer, policy: JWKSPolicy) -> TokenVerifier {
        TokenVerifier(
            settings: TokenVerifierSettings(keySetURLs: [server.url], rules: Tokens.rules(), policy: policy),
            fetcher: HTTPJWKSFetcher(policy: policy), logger: Logger(service: "jwks-live-tests", minimumLevel: .critical))
    }

    static func subject(_ verifier: TokenVerifier, _ token: String) async -> Result<String?, TokenVerificationError> {
        do {
            return .success(try await verifier.verify(token).subject)
        } catch {
            return .failure(error)
        }
    }

    @Test func rotationWithoutRestartAndTheLastGoodKeysThroughAnOutage() async throws {
        let rsa = try JWTSigner.generate(.rs256, keyID: "rsa-2024")
        let ec = try JWTSigner.generate(.es256, keyID: "ec-2024")
        let server = try LocalJWKSServer.start(publishing: [rsa, ec], cacheControl: "public, max-age=600, must-revalidate")
        // A short refetch interval, so the rotation below is seen within a second.
        let verifier = Self.verifier(server, policy: JWKSPolicy(minimumRefetchInterval: .milliseconds(500)))
        do {
            #expect(await Self.subject(verifier, try Tokens.sign(rsa, sub: "rsa-user")) == .success("rsa-user"))
            #expect(await Self.subject(verifier, try Tokens.sign(ec, sub: "ec-user")) == .success("ec-user"))
            #expect(server.requests == 1)
            // The response's max-age (600 s) sets the background refresh: at 80 %.
            let wait = verifier.keySets[0].secondsUntilRefresh()
            #expect(wait > 470 && wait <= 480, "\(wait)")

            // Rotation: a new ES256 key appears, the RSA key is withdrawn.
            let next = try JWTSigner.generate(.es256, keyID: "ec-2025")
            server.publish([ec, next])
            try await Task.sleep(for: .milliseconds(600))
            #expect(await Self.subject(verifier, try Tokens.sign(next, sub: "rotated")) == .success("rotated"))
            #expect(server.requests == 2)
            try await Task.sleep(for: .milliseconds(600))
            #expect(await Self.subject(verifier, try Tokens.sign(rsa)) == .failure(.rejected(.unknownKeyID)))
            #expect(server.requests == 3)

            // The host fails: the last good keys stay in use.
            server.fail(status: 503)
            #expect(await verifier.keySets[0].refresh() == false)
            #expect(await Self.subject(verifier, try Tokens.sign(next, sub: "kept")) == .success("kept"))
            // A response over the size bound is a failed fetch as well.
            server.serve(Array(#"{"keys":[],"padding":"\#(String(repeating: "x", count: 200_000))"}"#.utf8))
            #expect(await verifier.keySets[0].refresh() == false)
            #expect(verifier.keySets[0].keys?.keys.map(\.keyID) == ["ec-2024", "ec-2025"])
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func aFloodOfForgedKidsCostsOneFetchPerInterval() async throws {
        let real = try JWTSigner.generate(.es256, keyID: "real")
        let server = try LocalJWKSServer.start(publishing: [real])
        // The default policy: at most one fetch per 30 s for unknown kids.
        let verifier = Self.verifier(server, policy: JWKSPolicy())
        do {
            #expect(await Self.subject(verifier, try Tokens.sign(real)) == .success("user-1"))
            #expect(server.requests == 1)
            // 300 concurrent tokens with random kids, then 200 more one by one.
            let attacker = try JWTSigner.generate(.es256)
            let forged = try (0..<500).map { _ in
                var signer = attacker
                signer.keyID = UUID().uuidString
                return try Tokens.sign(signer)
            }
            let concurrent = await withTaskGroup(of: Result<String?, TokenVerificationError>.self) { group in
                for token in forged.prefix(300) { group.addTask { await Self.subject(verifier, token) } }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(concurrent.allSatisfy { $0 == .failure(.rejected(.unknownKeyID)) })
            for token in forged.suffix(200) {
                #expect(await Self.subject(verifier, token) == .failure(.rejected(.unknownKeyID)))
            }
            // The first fetch was less than 30 s ago: no forged kid reached the host.
            #expect(server.requests == 1, "500 forged kids made \(server.requests - 1) JWKS requests")
            #expect(await Self.subject(verifier, try Tokens.sign(real, sub: "still-fine")) == .success("still-fine"))
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func aHostDownAtStartIsRetriedAndThenServes() async throws {
        let key = try JWTSigner.generate(.rs256, keyID: "late")
        let server = try LocalJWKSServer.start(publishing: [key])
        server.fail(status: 500)
        let policy = JWKSPolicy(
            minimumRefetchInterval: .milliseconds(200), failureBackoff: .init(initial: .milliseconds(100), maximum: .milliseconds(200)))
        let verifier = Self.verifier(server, policy: policy)
        let refresher = try #require(verifier.refresher)
        let running = Task { try await refresher.run() }
        do {
            #expect(await Self.subject(verifier, try Tokens.sign(key)) == .failure(.keysUnavailable))
            server.publish([key])
            // The refresher's retries load the keys without any token asking.
            let deadline = ContinuousClock.now + .seconds(10)
            while !verifier.isReady, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            #expect(verifier.isReady)
            #expect(await Self.subject(verifier, try Tokens.sign(key, sub: "late-user")) == .success("late-user"))
        } catch {
            running.cancel()
            await server.stop()
            throw error
        }
        running.cancel()
        await server.stop()
    }
}
