import CryptoPrimitives
import Foundation
import Testing
import TokenVerification

/// Key choice by `kid`, refusals, the key cache's refetch and lifetime rules,
/// over a fake JWKS host and a manual clock (no sockets, no sleeping).
@Suite struct TokenVerifierTests {
    let rsa = try! JWTSigner.generate(.rs256, keyID: "rsa-1")
    let ec = try! JWTSigner.generate(.es256, keyID: "ec-1")

    // MARK: - Choosing the key

    @Test func theKidPicksTheKeyAmongSeveral() async throws {
        let harness = Harness(publishing: [rsa, ec])
        #expect(await harness.outcome(try Tokens.sign(rsa, sub: "from-rsa")) == .success("from-rsa"))
        #expect(await harness.outcome(try Tokens.sign(ec, sub: "from-ec")) == .success("from-ec"))
        // The first token loaded the set; the second found its key there.
        #expect(harness.fetcher.fetches == 1)
        #expect(harness.verifier.isReady)

        // The right kid over another key's signature is a forgery.
        var impostor = try JWTSigner.generate(.es256)
        impostor.keyID = "ec-1"
        #expect(await harness.outcome(try Tokens.sign(impostor)) == .failure(.rejected(.invalidSignature)))
        #expect(harness.fetcher.fetches == 1, "a known kid never refetches")
    }

    @Test func aTokenWithoutKidNeedsExactlyOneKey() async throws {
        var anonymous = ec
        anonymous.keyID = nil
        let several = Harness(publishing: [rsa, ec])
        #expect(await several.outcome(try Tokens.sign(anonymous)) == .failure(.rejected(.keyIDRequired)))

        let one = Harness(publishing: [ec])
        #expect(await one.outcome(try Tokens.sign(anonymous, sub: "only")) == .success("only"))
        // With one key of another algorithm, the token's alg still decides.
        let rsaOnly = Harness(publishing: [rsa])
        #expect(await rsaOnly.outcome(try Tokens.sign(anonymous)) == .failure(.rejected(.algorithmMismatch(expected: "RS256", actual: "ES256"))))
        // Two sets with one key each are two keys.
        let two = Harness(publishing: [ec], urls: 2)
        #expect(await two.outcome(try Tokens.sign(anonymous)) == .failure(.rejected(.keyIDRequired)))
    }

    // MARK: - Algorithm confusion

    @Test func noKeySetKeyEverVerifiesAnotherAlgorithm() async throws {
        let harness = Harness(publishing: [rsa, ec])
        _ = await harness.outcome(try Tokens.sign(rsa))
        let fetches = harness.fetcher.fetches

        // HS256 signed with the published RSA modulus, or the JWK text, as the secret.
        let jwk = try #require(rsa.publicJWK)
        for secret in [Array((jwk["n"]?.stringValue ?? "").utf8), Array(try JSONEncoder().encode(JOSEValue.object(jwk)))] where secret.count >= 32 {
            let forged = try Tokens.sign(JWTSigner(hs256Secret: secret, keyID: "rsa-1"))
            #expect(await harness.outcome(forged) == .failure(.rejected(.algorithmMismatch(expected: "RS256/ES256", actual: "HS256"))))
        }
        // An RS256 token naming the EC key's kid (and the other way round): refused, no refetch.
        var rsaAsEC = try JWTSigner.generate(.rs256, keyID: "ec-1")
        #expect(await harness.outcome(try Tokens.sign(rsaAsEC)) == .failure(.rejected(.algorithmMismatch(expected: "ES256", actual: "RS256"))))
        rsaAsEC = try JWTSigner.generate(.es256, keyID: "rsa-1")
        #expect(await harness.outcome(try Tokens.sign(rsaAsEC)) == .failure(.rejected(.algorithmMismatch(expected: "RS256", actual: "ES256"))))
        #expect(harness.fetcher.fetches == fetches)

        // alg none, whatever the kid.
        let none = Base64URL.encode(#"{"alg":"none","kid":"rsa-1"}"#.utf8) + "." + Base64URL.encode(#"{"sub":"x"}"#.utf8) + "."
        #expect(await harness.outcome(none) == .failure(.rejected(.unsupportedAlgorithm("none"))))

        // A key carried in the token itself (jwk header) is never used: its kid is simply unknown.
        let attacker = try JWTSigner.generate(.es256, keyID: "attacker")
        let header: JOSEValue = .object(["alg": "ES256", "kid": "attacker", "jwk": .object(try #require(attacker.publicJWK))])
        let input = Base64URL.encode(try JSONEncoder().encode(header)) + "." + Base64URL.encode(#"{"sub":"x","exp":9999999999}"#.utf8)
        let embedded = try attacker.sign(["sub": "x"]).split(separator: ".")[2]
        #expect(await harness.outcome(input + "." + embedded) == .failure(.rejected(.unknownKeyID)))
    }

    @Test func staticKeysAndKeySetsCombine() async throws {
        let secret = Array("an-hs256-secret-for-the-backend-tests-0123".utf8)
        let pem = try JWTSigner.generate(.rs256, keyID: "ignored-by-the-static-key")
        let pemJWK = try #require(pem.publicJWK)
        let pemKey = try JWTVerificationKey.rs256(
            modulus: try #require(Base64URL.decode(pemJWK["n"]?.stringValue ?? "")),
            exponent: try #require(Base64URL.decode(pemJWK["e"]?.stringValue ?? "")))
        let harness = Harness(publishing: [ec], staticKeys: [try .hs256(secret: secret), pemKey])

        #expect(await harness.outcome(try Tokens.sign(JWTSigner(hs256Secret: secret), sub: "backend")) == .success("backend"))
        #expect(await harness.outcome(try Tokens.sign(pem, sub: "pem")) == .success("pem"))
        #expect(harness.fetcher.fetches == 0, "static keys need no key set")
        #expect(await harness.outcome(try Tokens.sign(ec, sub: "jwks")) == .success("jwks"))
        // A wrong HS256 secret is a bad signature, not a reason to look at the key sets.
        let wrong = try Tokens.sign(JWTSigner(hs256Secret: Array("another-secret-of-at-least-32-bytes!!".utf8)))
        #expect(await harness.outcome(wrong) == .failure(.rejected(.invalidSignature)))
        // Without any HS256 secret, HS256 is an algorithm nothing verifies.
        let jwksOnly = Harness(publishing: [ec])
        #expect(
            await jwksOnly.outcome(try Tokens.sign(JWTSigner(hs256Secret: secret)))
                == .failure(.rejected(.algorithmMismatch(expected: "RS256/ES256", actual: "HS256"))))
    }

    // MARK: - Claims

    @Test func claimRulesApplyToKeySetTokens() async throws {
        let harness = Harness(publishing: [ec], rules: Tokens.rules(maxAge: .seconds(3600)))
        #expect(await harness.outcome(try Tokens.sign(ec, expiresIn: -60)) == .failure(.rejected(.expired)))
        #expect(await harness.outcome(try Tokens.sign(ec, issuedAgo: -120)) == .failure(.rejected(.issuedInFuture)))
        #expect(await harness.outcome(try Tokens.sign(ec, issuedAgo: 7200, expiresIn: 600)) == .failure(.rejected(.tooOld)))
        #expect(await harness.outcome(try Tokens.sign(ec, extra: ["iss": "https://other.example.com"])) == .failure(.rejected(.invalidIssuer)))
        #expect(await harness.outcome(try Tokens.sign(ec, extra: ["aud": "another-app"])) == .failure(.rejected(.invalidAudience)))
        #expect(
            await harness.outcome(try ec.sign(["sub": "no-exp", "iss": .string(Tokens.issuer), "aud": .string(Tokens.audience)]))
                == .failure(.rejected(.missingClaim("exp"))))
        #expect(await harness.outcome(try Tokens.sign(ec, sub: "fine")) == .success("fine"))
    }

    // MARK: - Refetching

    @Test func anUnknownKidRefetchesAtMostOncePerInterval() async throws {
        let harness = Harness(publishing: [rsa])
        #expect(await harness.outcome(try Tokens.sign(rsa)) == .success("user-1"))
        #expect(harness.fetcher.fetches == 1)

        // Rotation: a new key is published and the old one removed.
        let next = try JWTSigner.generate(.es256, keyID: "ec-2")
        harness.fetcher.publish([next])
        // Within 30 s of the last fetch an unknown kid is refused without a fetch…
        #expect(await harness.outcome(try Tokens.sign(next)) == .failure(.rejected(.unknownKeyID)))
        #expect(harness.fetcher.fetches == 1)
        // …after it, the unknown kid brings the new set, and the old key is gone.
        harness.clock.advance(.seconds(31))
        #expect(await harness.outcome(try Tokens.sign(next, sub: "rotated")) == .success("rotated"))
        #expect(harness.fetcher.fetches == 2)
        harness.clock.advance(.seconds(31))
        #expect(await harness.outcome(try Tokens.sign(rsa)) == .failure(.rejected(.unknownKeyID)))
        #expect(harness.fetcher.fetches == 3)
        // A flood of forged kids inside one interval costs nothing more.
        for index in 0..<200 {
            let forged = try JWTSigner.generate(.es256, keyID: "forged-\(index)")
            #expect(await harness.outcome(try Tokens.sign(forged)) == .failure(.rejected(.unknownKeyID)))
            if index % 50 == 0 { harness.clock.advance(.seconds(1)) }
        }
        #expect(harness.fetcher.fetches == 3)
    }

    @Test func concurrentUnknownKidsShareOneFetch() async throws {
        let harness = Harness(publishing: [rsa])
        _ = await harness.outcome(try Tokens.sign(rsa))
        harness.clock.advance(.seconds(60))
        harness.fetcher.hold(for: .milliseconds(300))
        let forged = try (0..<100).map { try Tokens.sign(JWTSigner.generate(.es256, keyID: "forged-\($0)")) }
        let outcomes = await withTaskGroup(of: Result<String?, TokenVerificationError>.self) { group in
            for token in forged { group.addTask { await harness.outcome(token) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.allSatisfy { $0 == .failure(.rejected(.unknownKeyID)) })
        #expect(harness.fetcher.fetches == 2, "100 concurrent unknown kids made \(harness.fetcher.fetches - 1) fetches")
    }

    @Test func aFailedFetchKeepsTheLastGoodKeys() async throws {
        let harness = Harness(publishing: [rsa, ec])
        #expect(await harness.keySet.refresh())
        for failure in [JWKSFetchError.status(503), .timeout, .unreachable("connection refused"), .tooLarge(limit: 1)] {
            harness.fetcher.fail(failure)
            #expect(await harness.keySet.refresh() == false)
            #expect(await harness.outcome(try Tokens.sign(ec, sub: "still")) == .success("still"))
        }
        // A document that parses to no usable key, or does not parse, is a failure too.
        for body in [#"{"keys":[]}"#, #"{"keys":[{"kty":"oct","k":"c2VjcmV0"}]}"#, "<html>", ""] {
            harness.fetcher.serve(Array(body.utf8))
            #expect(await harness.keySet.refresh() == false, "\(body)")
            #expect(harness.keySet.keys?.keys.count == 2)
        }
        #expect(await harness.outcome(try Tokens.sign(rsa, sub: "kept")) == .success("kept"))
    }

    @Test func keysNeverLoadedAnswerUnavailableNotRejected() async throws {
        let harness = Harness(publishing: [ec])
        harness.fetcher.fail(.unreachable("connection refused"))
        #expect(await harness.outcome(try Tokens.sign(ec)) == .failure(.keysUnavailable))
        #expect(!harness.verifier.isReady)
        var anonymous = ec
        anonymous.keyID = nil
        #expect(await harness.outcome(try Tokens.sign(anonymous)) == .failure(.keysUnavailable))
        // The host comes back: the next allowed fetch loads the keys.
        harness.fetcher.publish([ec])
        harness.clock.advance(.seconds(31))
        #expect(await harness.outcome(try Tokens.sign(ec, sub: "back")) == .success("back"))
        #expect(harness.verifier.isReady)
        // Malformed tokens are refused without any fetch.
        let fetches = harness.fetcher.fetches
        #expect(await harness.outcome("not.a.token").isRejected)
        #expect(harness.fetcher.fetches == fetches)
    }

    // MARK: - Lifetime

    @Test func cacheControlSetsTheRefreshTimeWithinBounds() async throws {
        for (maxAge, expected) in [(Duration.seconds(60), 300.0), (.seconds(1200), 1200), (.seconds(864_000), 86_400), (nil, 3600)]
            as [(Duration?, Double)]
        {
            let harness = Harness(publishing: [ec])
            harness.fetcher.publish([ec], maxAge: maxAge)
            #expect(harness.keySet.secondsUntilRefresh() == 0, "never loaded: fetch at once")
            #expect(await harness.keySet.refresh())
            #expect(abs(harness.keySet.secondsUntilRefresh() - expected * 0.8) < 0.001, "max-age \(String(describing: maxAge))")
            harness.clock.advance(.seconds(Int(expected)))
            #expect(harness.keySet.secondsUntilRefresh() == 0)
        }
        // After failures the background retries back off: 5 s, 10 s, 20 s…
        let harness = Harness(publishing: [ec])
        harness.fetcher.fail(.timeout)
        for expected in [5.0, 10, 20, 40] {
            #expect(await harness.keySet.refresh() == false)
            #expect(harness.keySet.secondsUntilRefresh() == expected)
        }
    }

    @Test func cacheControlParsing() {
        #expect(CacheLifetime.maxAge(cacheControl: "public, max-age=21600, must-revalidate, no-transform") == .seconds(21600))
        #expect(CacheLifetime.maxAge(cacheControl: "max-age=\"600\"") == .seconds(600))
        #expect(CacheLifetime.maxAge(cacheControl: "MAX-AGE=60", age: "15") == .seconds(45))
        #expect(CacheLifetime.maxAge(cacheControl: "max-age=60", age: "600") == .zero)
        #expect(CacheLifetime.maxAge(cacheControl: "no-store") == .zero)
        #expect(CacheLifetime.maxAge(cacheControl: "private, no-cache, max-age=600") == .zero)
        for value in [nil, "", "public", "max-age=", "max-age=-5", "max-age=abc", "max-age=99999999999999"] as [String?] {
            #expect(CacheLifetime.maxAge(cacheControl: value) == nil, "\(String(describing: value))")
        }
        let policy = JWKSPolicy()
        #expect(policy.timeToLive(maxAge: .zero) == .seconds(300))
        #expect(policy.timeToLive(maxAge: nil) == .seconds(3600))
        #expect(policy.timeToLive(maxAge: .seconds(10_000_000)) == .seconds(86_400))
    }
}
