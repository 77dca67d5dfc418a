import CryptoPrimitives
import Foundation
import Testing

/// JSON Web Key Sets: which entries become keys, and that keys built from
/// `n`/`e` and `x`/`y` that the `openssl` command printed verify openssl's signatures.
@Suite("JWK parsing")
struct JWKTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func document(_ keys: [JOSEValue]) throws -> [UInt8] {
        Array(try JSONEncoder().encode(JOSEValue.object(["keys": .array(keys)])))
    }

    /// An RSA JWK with openssl's modulus and the usual exponent 65537.
    static func rsaJWK(_ modulus: [UInt8], extra: [String: JOSEValue] = [:]) -> JOSEValue {
        var jwk: [String: JOSEValue] = ["kty": "RSA", "n": .string(Base64URL.encode(modulus)), "e": "AQAB"]
        jwk.merge(extra) { _, new in new }
        return .object(jwk)
    }

    static func ecJWK(_ keys: P256KeyPair, extra: [String: JOSEValue] = [:]) -> JOSEValue {
        var jwk: [String: JOSEValue] = ["kty": "EC", "crv": "P-256", "x": .string(Base64URL.encode(keys.x)), "y": .string(Base64URL.encode(keys.y))]
        jwk.merge(extra) { _, new in new }
        return .object(jwk)
    }

    @Test func rsaAndECKeysFromOpenSSLVerifyOpenSSLSignatures() async throws {
        let (rsa, _) = try await sharedKeys.value
        let ec = try await sharedP256Keys.value
        let modulus = try await opensslModulus(publicKeyPath: rsa.publicKeyPath)
        let set = try JSONWebKeySet.parse(
            Self.document([
                Self.rsaJWK(modulus, extra: ["kid": "rsa-1", "use": "sig", "alg": "RS256", "x5c": ["ignored"]]),
                Self.ecJWK(ec, extra: ["kid": "ec-1", "use": "sig", "alg": "ES256"]),
            ]))
        #expect(set.ignored.isEmpty, "\(set.ignored)")
        #expect(set.keys.map(\.keyID) == ["rsa-1", "ec-1"])
        #expect(set.keys.map(\.algorithm) == [.rs256, .es256])
        #expect(set.keys(withID: "ec-1").count == 1 && set.keys(withID: "nope").isEmpty)

        let claims = #"{"sub":"jwk-user","exp":\#(Int(Self.now.timeIntervalSince1970) + 60)}"#
        let rsInput = Base64URL.encode(#"{"alg":"RS256","kid":"rsa-1"}"#.utf8) + "." + Base64URL.encode(claims.utf8)
        let rsToken = rsInput + "." + Base64URL.encode(try await rsa.opensslSign(rsInput))
        let esInput = Base64URL.encode(#"{"alg":"ES256","kid":"ec-1"}"#.utf8) + "." + Base64URL.encode(claims.utf8)
        let esToken = esInput + "." + Base64URL.encode(try await ec.opensslRawSignature(try await ec.opensslSignDER(esInput)))
        #expect(try JWTVerifier(key: set.keys[0].key, now: { JWKTests.now }).verify(rsToken).subject == "jwk-user")
        #expect(try JWTVerifier(key: set.keys[1].key, now: { JWKTests.now }).verify(esToken).subject == "jwk-user")
        // Description names the algorithm and kid only.
        #expect(set.keys[0].description == #"RS256 key "rsa-1""#)
    }

    @Test func entriesThatAreNotSignatureKeysAreIgnored() async throws {
        let (rsa, _) = try await sharedKeys.value
        let ec = try await sharedP256Keys.value
        let modulus = try await opensslModulus(publicKeyPath: rsa.publicKeyPath)
        let x = JOSEValue.string(Base64URL.encode(ec.x))
        let entries: [(JOSEValue, String)] = [
            (Self.rsaJWK(modulus, extra: ["kid": "enc", "use": "enc"]), "use is not sig"),
            (Self.rsaJWK(modulus, extra: ["kid": "ops", "key_ops": ["encrypt"]]), "key_ops lack verify"),
            (Self.rsaJWK(modulus, extra: ["kid": "rs512", "alg": "RS512"]), "alg is not RS256"),
            (Self.rsaJWK(modulus, extra: ["kid": "es-on-rsa", "alg": "ES256"]), "alg is not RS256"),
            (Self.ecJWK(ec, extra: ["kid": "rs-on-ec", "alg": "RS256"]), "alg is not ES256"),
            (Self.ecJWK(ec, extra: ["kid": "p384", "crv": "P-384"]), "curve is not P-256"),
            (.object(["kty": "oct", "kid": "hmac", "k": "c2VjcmV0"]), "symmetric keys are never taken from a key set"),
            (.object(["kty": "OKP", "kid": "ed", "crv": "Ed25519", "x": x]), "kty OKP is not supported"),
            (.object(["kid": "no-kty"]), "no kty"),
            (.object(["kty": "RSA", "kid": "bad-n", "n": "not base64url!", "e": "AQAB"]), "n is not base64url"),
            (Self.rsaJWK(Array(modulus.prefix(128)), extra: ["kid": "rsa-1024"]), "RSA public key shorter than 2048 bits"),
            (
                .object(["kty": "RSA", "kid": "even-e", "n": .string(Base64URL.encode(modulus)), "e": "AQAA"]),
                "RSA exponent must be odd and at most 64 bits"
            ),
            (.object(["kty": "EC", "crv": "P-256", "kid": "short-x", "x": "AQID", "y": x]), "P-256 coordinates must be 32 bytes each"),
            (Self.ecJWK(ec, extra: ["kid": "off-curve", "y": x]), "P-256 point is not on the curve"),
            (Self.rsaJWK(modulus, extra: ["kid": .int(7)]), "kid is not a string of at most 256 bytes"),
            ("just a string", "not an object"),
        ]
        let set = try JSONWebKeySet.parse(Self.document(entries.map(\.0) + [Self.ecJWK(ec, extra: ["kid": "good"])]))
        #expect(set.keys.map(\.keyID) == ["good"])
        #expect(set.ignored.count == entries.count)
        for (line, (_, reason)) in zip(set.ignored, entries) {
            #expect(line.hasSuffix(": " + reason), "\(line)")
        }
        // A reason never carries key material.
        #expect(!set.ignored.joined().contains(Base64URL.encode(modulus).prefix(40)))
    }

    @Test func malformedDocumentsAreRefused() throws {
        for document in ["", "[]", "{}", #"{"keys":{}}"#, #"{"keys":"x"}"#, "not json"] {
            #expect(throws: JWTError.self, "\(document)") { try JSONWebKeySet.parse(Array(document.utf8)) }
        }
        let many = try Self.document([JOSEValue](repeating: .object(["kty": "oct"]), count: 65))
        #expect(throws: JWTError.invalidKey("JWKS has more than 64 keys")) { try JSONWebKeySet.parse(many) }
        // An empty set parses; what to do with it is the caller's call.
        #expect(try JSONWebKeySet.parse(Array(#"{"keys":[]}"#.utf8)).keys.isEmpty)
    }

    /// Algorithm confusion: a public key's bytes used as an HMAC secret.
    @Test func aJWKNeverVerifiesAnHS256Token() async throws {
        let signer = try JWTSigner.generate(.rs256, keyID: "k")
        let jwk = try #require(signer.publicJWK)
        let key = try #require(try JSONWebKeySet.parse(Self.document([.object(jwk)])).keys.first)
        let jwkText = String(decoding: try JSONEncoder().encode(JOSEValue.object(jwk)), as: UTF8.self)
        let claims = #"{"sub":"mallory","exp":\#(Int(Self.now.timeIntervalSince1970) + 60)}"#
        for secret in [jwkText, jwk["n"]?.stringValue ?? ""] {
            let forged = try await pythonJWT(header: #"{"alg":"HS256","kid":"k"}"#, claims: claims, secret: secret)
            #expect(throws: JWTError.algorithmMismatch(expected: "RS256", actual: "HS256")) {
                try JWTVerifier(key: key.key, now: { JWKTests.now }).verify(forged)
            }
        }
        // alg none with the right kid is refused before any key is looked at.
        let none = try await pythonJWT(header: #"{"alg":"none","kid":"k"}"#, claims: claims, secret: "")
        #expect(throws: JWTError.unsupportedAlgorithm("none")) { try UnverifiedJWT(none) }
    }

    @Test func unverifiedHeaderReadsAlgAndKid() throws {
        let signer = try JWTSigner.generate(.es256, keyID: "abc")
        let token = try signer.sign(["sub": "u"])
        let parsed = try UnverifiedJWT(token)
        #expect(parsed.algorithm == .es256 && parsed.keyID == "abc")
        let long = Base64URL.encode(#"{"alg":"ES256","kid":"\#(String(repeating: "k", count: 257))"}"#.utf8) + ".e30.c2ln"
        #expect(throws: JWTError.malformed("kid must be a string of at most 256 bytes")) { try UnverifiedJWT(long) }
        let numeric = Base64URL.encode(#"{"alg":"ES256","kid":1}"#.utf8) + ".e30.c2ln"
        #expect(throws: JWTError.self) { try UnverifiedJWT(numeric) }
    }
}
