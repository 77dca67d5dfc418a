import CryptoPrimitives
import Foundation
import Testing

@Suite("JWT verification and signing")
struct JWTTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    static let secret = "dev-secret-\(String(repeating: "x", count: 32))"
    static let hs256Header = #"{"alg":"HS256","typ":"JWT"}"#

    func verifier(issuer: String? = "https://auth.example", audience: String? = "storefront") throws -> JWTVerifier {
        JWTVerifier(
            key: try .hs256(secret: Self.secret.utf8), issuer: issuer, audience: audience,
            leeway: .seconds(30), now: { JWTTests.now })
    }

    /// Claims JSON with times relative to `now`.
    func claims(exp: Int = 3600, nbf: Int? = nil, iss: String = "https://auth.example", aud: String = #"["storefront","other"]"#) -> String {
        let base = Int(Self.now.timeIntervalSince1970)
        var fields = [
            #""sub":"user-42""#, #""email":"ada@example.com""#, #""iss":"\#(iss)""#, #""aud":\#(aud)"#,
            #""exp":\#(base + exp)"#, #""iat":\#(base - 10)"#, #""plan":"pro""#,
        ]
        if let nbf { fields.append(#""nbf":\#(base + nbf)"#) }
        return "{" + fields.joined(separator: ",") + "}"
    }

    // MARK: - HS256

    @Test func pythonHS256TokenVerifies() async throws {
        let token = try await pythonJWT(header: Self.hs256Header, claims: claims(), secret: Self.secret)
        let verified = try verifier().verify(token)
        #expect(verified.subject == "user-42")
        #expect(verified.email == "ada@example.com")
        #expect(verified.issuer == "https://auth.example")
        #expect(verified.audience == ["storefront", "other"])
        #expect(verified.expiresAt == Self.now.addingTimeInterval(3600))
        #expect(verified.issuedAt == Self.now.addingTimeInterval(-10))
        #expect(verified["plan"] == .string("pro"))
    }

    @Test func audienceMayBeASingleString() async throws {
        let token = try await pythonJWT(header: Self.hs256Header, claims: claims(aud: #""storefront""#), secret: Self.secret)
        #expect(try verifier().verify(token).audience == ["storefront"])
    }

    @Test func tamperedSignatureIsRejected() async throws {
        let token = try await pythonJWT(header: Self.hs256Header, claims: claims(), secret: Self.secret)
        var parts = token.split(separator: ".").map(String.init)
        var signature = try #require(Base64URL.decode(parts[2]))
        signature[0] ^= 0x01
        parts[2] = Base64URL.encode(signature)
        #expect(throws: JWTError.invalidSignature) { try verifier().verify(parts.joined(separator: ".")) }
        // Signed with another secret.
        let other = try await pythonJWT(header: Self.hs256Header, claims: claims(), secret: Self.secret + "!")
        #expect(throws: JWTError.invalidSignature) { try verifier().verify(other) }
    }

    @Test func tamperedPayloadIsRejected() async throws {
        let token = try await pythonJWT(header: Self.hs256Header, claims: claims(), secret: Self.secret)
        var parts = token.split(separator: ".").map(String.init)
        let payload = String(decoding: try #require(Base64URL.decode(parts[1])), as: UTF8.self)
        parts[1] = Base64URL.encode(payload.replacingOccurrences(of: "user-42", with: "user-43").utf8)
        #expect(throws: JWTError.invalidSignature) { try verifier().verify(parts.joined(separator: ".")) }
    }

    @Test func expiredIsRejectedBeyondTheLeeway() async throws {
        let expired = try await pythonJWT(header: Self.hs256Header, claims: claims(exp: -31), secret: Self.secret)
        #expect(throws: JWTError.expired) { try verifier().verify(expired) }
        let withinLeeway = try await pythonJWT(header: Self.hs256Header, claims: claims(exp: -20), secret: Self.secret)
        #expect(try verifier().verify(withinLeeway).subject == "user-42")
    }

    @Test func notYetValidIsRejected() async throws {
        let future = try await pythonJWT(header: Self.hs256Header, claims: claims(nbf: 300), secret: Self.secret)
        #expect(throws: JWTError.notYetValid) { try verifier().verify(future) }
        let skewed = try await pythonJWT(header: Self.hs256Header, claims: claims(nbf: 10), secret: Self.secret)
        #expect(try verifier().verify(skewed).notBefore == Self.now.addingTimeInterval(10))
    }

    @Test func wrongIssuerOrAudienceIsRejected() async throws {
        let token = try await pythonJWT(header: Self.hs256Header, claims: claims(), secret: Self.secret)
        #expect(throws: JWTError.invalidAudience) { try verifier(audience: "billing").verify(token) }
        #expect(throws: JWTError.invalidIssuer) { try verifier(issuer: "https://evil.example").verify(token) }
        #expect(try verifier(issuer: nil, audience: nil).verify(token).subject == "user-42")
    }

    @Test func missingExpirationIsRejected() async throws {
        let token = try await pythonJWT(header: Self.hs256Header, claims: #"{"sub":"user-42"}"#, secret: Self.secret)
        #expect(throws: JWTError.missingClaim("exp")) { try verifier(issuer: nil, audience: nil).verify(token) }
    }

    @Test func algNoneIsRejected() async throws {
        for alg in ["none", "None", "NONE"] {
            let token = try await pythonJWT(header: #"{"alg":"\#(alg)","typ":"JWT"}"#, claims: claims(), secret: Self.secret)
            #expect(token.hasSuffix("."))
            #expect(throws: JWTError.unsupportedAlgorithm(alg)) { try verifier().verify(token) }
        }
    }

    @Test func malformedTokensAreRejected() throws {
        let verifier = try verifier()
        for token in ["", "abc", "a.b", "a.b.c.d", "!!!.e30.sig", "e30.e30.", String(repeating: "a", count: 9000)] {
            #expect(throws: JWTError.self) { try verifier.verify(token) }
        }
        // Header without alg.
        let noAlg = Base64URL.encode(#"{"typ":"JWT"}"#.utf8) + "." + Base64URL.encode("{}".utf8) + ".c2ln"
        #expect(throws: JWTError.malformed("header lacks alg")) { try verifier.verify(noAlg) }
    }

    @Test func shortHS256SecretIsRefused() {
        #expect(throws: JWTError.self) { try JWTVerificationKey.hs256(secret: "short".utf8) }
        #expect(throws: JWTError.self) { try JWTSigner(hs256Secret: "short".utf8) }
    }

    @Test func signerRoundTrip() throws {
        let signer = try JWTSigner(hs256Secret: Self.secret.utf8, keyID: "dev")
        let exp = Int(Self.now.timeIntervalSince1970) + 60
        let token = try signer.sign(["sub": "user-7", "iss": "https://auth.example", "aud": "storefront", "exp": .int(exp)])
        let header = String(decoding: try #require(Base64URL.decode(token.split(separator: ".")[0])), as: UTF8.self)
        #expect(header == #"{"alg":"HS256","kid":"dev","typ":"JWT"}"#)
        #expect(try verifier().verify(token).subject == "user-7")
    }

    // MARK: - RS256

    @Test func opensslSignedRS256TokenVerifies() async throws {
        let (keys, _) = try await sharedKeys.value
        let signingInput = Base64URL.encode(#"{"alg":"RS256","typ":"JWT"}"#.utf8) + "." + Base64URL.encode(claims().utf8)
        let signature = try await keys.opensslSign(signingInput)
        let token = signingInput + "." + Base64URL.encode(signature)
        let verifier = JWTVerifier(
            key: try .rs256(publicKeyPEM: keys.publicKeyPEM), issuer: "https://auth.example", audience: "storefront",
            now: { JWTTests.now })
        #expect(try verifier.verify(token).subject == "user-42")

        var tampered = signature
        tampered[tampered.count / 2] ^= 0x80
        #expect(throws: JWTError.invalidSignature) { try verifier.verify(signingInput + "." + Base64URL.encode(tampered)) }
    }

    @Test func rs256SignerOutputVerifiesWithOpenSSL() async throws {
        let (keys, otherKeys) = try await sharedKeys.value
        let signer = try JWTSigner(rs256PrivateKeyPEM: keys.privateKeyPEM)
        let token = try signer.sign(["sub": "user-9", "exp": .int(Int(Self.now.timeIntervalSince1970) + 60)])
        let parts = token.split(separator: ".").map(String.init)
        let signature = try #require(Base64URL.decode(parts[2]))
        #expect(try await keys.opensslVerify(parts[0] + "." + parts[1], signature: signature))

        let right = JWTVerifier(key: try .rs256(publicKeyPEM: keys.publicKeyPEM), now: { JWTTests.now })
        let wrong = JWTVerifier(key: try .rs256(publicKeyPEM: otherKeys.publicKeyPEM), now: { JWTTests.now })
        #expect(try right.verify(token).subject == "user-9")
        #expect(throws: JWTError.invalidSignature) { try wrong.verify(token) }
    }

    @Test func hs256TokenIsRejectedByAnRS256Verifier() async throws {
        let (keys, _) = try await sharedKeys.value
        let rsVerifier = JWTVerifier(key: try .rs256(publicKeyPEM: keys.publicKeyPEM), now: { JWTTests.now })
        // The classic confusion attack: HMAC keyed with the public key's PEM text.
        let forged = try await pythonJWT(header: Self.hs256Header, claims: claims(), secret: keys.publicKeyPEM)
        #expect(throws: JWTError.algorithmMismatch(expected: "RS256", actual: "HS256")) { try rsVerifier.verify(forged) }
        // And the reverse: an RS256 token against an HS256 verifier.
        let rsToken = try JWTSigner(rs256PrivateKeyPEM: keys.privateKeyPEM).sign(["exp": .int(Int(Self.now.timeIntervalSince1970) + 60)])
        #expect(throws: JWTError.algorithmMismatch(expected: "HS256", actual: "RS256")) { try verifier().verify(rsToken) }
    }

    @Test func badKeysAreRefused() async throws {
        let (keys, _) = try await sharedKeys.value
        #expect(throws: JWTError.self) { try JWTVerificationKey.rs256(publicKeyPEM: "not a pem") }
        #expect(throws: JWTError.self) { try JWTVerificationKey.rs256(publicKeyPEM: keys.privateKeyPEM) }
        #expect(throws: JWTError.self) { try JWTSigner(rs256PrivateKeyPEM: keys.publicKeyPEM) }
        let ec = try await runText(["sh", "-c", "openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 | openssl pkey -pubout"])
        #expect(throws: JWTError.invalidKey("public key is not RSA")) { try JWTVerificationKey.rs256(publicKeyPEM: ec) }
        let small = try await runText(["sh", "-c", "openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:1024 | openssl pkey -pubout"])
        #expect(throws: JWTError.self) { try JWTVerificationKey.rs256(publicKeyPEM: small) }
    }
}

/// Found by `make fuzz` (fuzz-jwt): a header with two `alg` members verified,
/// the verifier reading one and other JSON readers the other (RFC 7515 §4 and
/// RFC 7519 §4 require names to be unique or the last one to win).
@Suite("JWT duplicate member names")
struct JWTDuplicateMemberTests {
    static let secret = Array("dev-secret-\(String(repeating: "x", count: 32))".utf8)
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    func signed(header: String, payload: String) -> String {
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
        return input + "." + Base64URL.encode(HMAC.sha256(key: Self.secret, message: Array(input.utf8)))
    }

    @Test func duplicateHeaderOrClaimNamesAreRefused() throws {
        let verifier = JWTVerifier(key: try .hs256(secret: Self.secret), now: { Self.now })
        let claims = #"{"sub":"alice","exp":1800000000}"#
        #expect(throws: Never.self) { try verifier.verify(signed(header: #"{"alg":"HS256"}"#, payload: claims)) }
        for header in [#"{"alg": "HS256", "alg": "HST"}"#, #"{"alg":"HS256","\u0061lg":"none"}"#, #"{"alg":"HS256","typ":"JWT","typ":"x"}"#] {
            #expect(throws: JWTError.malformed("header has duplicate member names"), "\(header)") {
                try verifier.verify(signed(header: header, payload: claims))
            }
        }
        #expect(throws: JWTError.malformed("payload has duplicate member names")) {
            try verifier.verify(signed(header: #"{"alg":"HS256"}"#, payload: #"{"sub":"alice","sub":"bob","exp":1800000000}"#))
        }
        // Nested objects and strings with commas, braces and escaped quotes are not members.
        let nested = #"{"sub":"a,b}\",c","exp":1800000000,"x":{"sub":"y","z":[1,2,{"q":","}]}}"#
        #expect(try verifier.verify(signed(header: #"{"alg":"HS256"}"#, payload: nested)).subject == #"a,b}",c"#)
    }
}
