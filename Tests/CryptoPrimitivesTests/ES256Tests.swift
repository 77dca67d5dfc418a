import CryptoPrimitives
import Foundation
import Testing

/// ES256: the raw `R || S` ⇄ DER conversion, and signatures that the
/// `openssl` command made or checks, with keys built from JWK coordinates.
@Suite("ES256 signatures")
struct ES256Tests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    func claims(exp: Int = 600) -> String {
        let base = Int(Self.now.timeIntervalSince1970)
        return #"{"sub":"ec-user","iss":"https://id.example","exp":\#(base + exp),"iat":\#(base - 5)}"#
    }

    // MARK: - Raw ⇄ DER

    @Test func rawToDERFollowsTheIntegerRules() throws {
        // r with its top bit set gets a leading zero; s with leading zeros loses them.
        let r = [UInt8](repeating: 0x80, count: 32)
        let s = [UInt8](repeating: 0, count: 30) + [0x01, 0x7F]
        let der = try #require(ECDSASignatureFormat.der(fromRaw: r + s))
        #expect(der == [0x30, 0x27, 0x02, 0x21, 0x00] + r + [0x02, 0x02, 0x01, 0x7F])
        #expect(ECDSASignatureFormat.raw(fromDER: der) == r + s)

        // Zero encodes as one zero byte (OpenSSL then refuses it as a signature value).
        let zero = [UInt8](repeating: 0, count: 64)
        #expect(ECDSASignatureFormat.der(fromRaw: zero) == [0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00])
        #expect(ECDSASignatureFormat.raw(fromDER: [0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00]) == zero)

        // Only exactly 64 bytes are an ES256 signature.
        for count in [0, 63, 65, 128] {
            #expect(ECDSASignatureFormat.der(fromRaw: [UInt8](repeating: 1, count: count)) == nil)
        }
    }

    @Test func nonStrictDERIsRefused() {
        let valid: [UInt8] = [0x30, 0x06, 0x02, 0x01, 0x05, 0x02, 0x01, 0x07]
        #expect(ECDSASignatureFormat.raw(fromDER: valid) == [UInt8](repeating: 0, count: 31) + [5] + [UInt8](repeating: 0, count: 31) + [7])
        let refused: [[UInt8]] = [
            valid + [0x00], // trailing byte
            [0x30, 0x07, 0x02, 0x02, 0x00, 0x05, 0x02, 0x01, 0x07], // non-minimal integer
            [0x30, 0x06, 0x02, 0x01, 0x85, 0x02, 0x01, 0x07], // negative integer
            [0x30, 0x81, 0x06, 0x02, 0x01, 0x05, 0x02, 0x01, 0x07], // long form for a short length
            [0x30, 0x09, 0x02, 0x01, 0x05, 0x02, 0x01, 0x07, 0x02, 0x01, 0x01], // three integers
            [0x30, 0x10, 0x02, 0x01, 0x05], // length past the end
            [0x30, 0x25, 0x02, 0x21, 0x01] + [UInt8](repeating: 0x11, count: 32) + [0x02, 0x00], // 33-byte r, empty s
        ]
        for der in refused {
            #expect(ECDSASignatureFormat.raw(fromDER: der) == nil, "\(Hex.encode(der))")
        }
    }

    // MARK: - Against openssl

    @Test func opensslSignedTokenVerifiesWithTheJWKCoordinates() async throws {
        let keys = try await sharedP256Keys.value
        let signingInput = Base64URL.encode(#"{"alg":"ES256","kid":"ec-1"}"#.utf8) + "." + Base64URL.encode(claims().utf8)
        let der = try await keys.opensslSignDER(signingInput)
        // openssl's own reading of its DER signature: R and S, independent of the code under test.
        let raw = try await keys.opensslRawSignature(der)
        #expect(ECDSASignatureFormat.raw(fromDER: der) == raw)
        #expect(ECDSASignatureFormat.der(fromRaw: raw) == der)

        let verifier = JWTVerifier(key: try .es256(x: keys.x, y: keys.y), issuer: "https://id.example", now: { ES256Tests.now })
        #expect(try verifier.verify(signingInput + "." + Base64URL.encode(raw)).subject == "ec-user")

        // The DER form is not a JWS signature, and a flipped bit or swapped halves do not verify.
        #expect(throws: JWTError.invalidSignature) { try verifier.verify(signingInput + "." + Base64URL.encode(der)) }
        var flipped = raw
        flipped[40] ^= 0x01
        #expect(throws: JWTError.invalidSignature) { try verifier.verify(signingInput + "." + Base64URL.encode(flipped)) }
        let swapped = Array(raw.suffix(32) + raw.prefix(32))
        #expect(throws: JWTError.invalidSignature) { try verifier.verify(signingInput + "." + Base64URL.encode(swapped)) }
    }

    @Test func signerOutputVerifiesWithOpenSSL() async throws {
        let keys = try await sharedP256Keys.value
        let signer = try JWTSigner(es256PrivateKeyPEM: keys.privateKeyPEM, keyID: "ec-1")
        let token = try signer.sign(["sub": "ec-user", "exp": .int(Int(Self.now.timeIntervalSince1970) + 60)])
        let parts = token.split(separator: ".").map(String.init)
        let raw = try #require(Base64URL.decode(parts[2]))
        #expect(raw.count == 64)
        let der = try #require(ECDSASignatureFormat.der(fromRaw: raw))
        #expect(try await keys.opensslVerifyDER(parts[0] + "." + parts[1], signature: der))
        let header = String(decoding: try #require(Base64URL.decode(parts[0])), as: UTF8.self)
        #expect(header == #"{"alg":"ES256","kid":"ec-1","typ":"JWT"}"#)
    }

    @Test func generatedKeysPublishAJWKThatVerifiesTheirTokens() throws {
        for algorithm in [JWTAlgorithm.es256, .rs256] {
            let signer = try JWTSigner.generate(algorithm, keyID: "generated-\(algorithm.rawValue)")
            let jwk = try #require(signer.publicJWK)
            #expect(jwk["kid"] == .string("generated-\(algorithm.rawValue)") && jwk["use"] == "sig" && jwk["alg"] == .string(algorithm.rawValue))
            #expect(jwk["d"] == nil && jwk["p"] == nil, "a private member was published")
            let set = try JSONWebKeySet.parse(Array(try JSONEncoder().encode(JOSEValue.object(["keys": [.object(jwk)]]))))
            let key = try #require(set.keys.first)
            #expect(set.keys.count == 1 && key.algorithm == algorithm && key.keyID == "generated-\(algorithm.rawValue)")
            let token = try signer.sign(["sub": "gen", "exp": .int(Int(Self.now.timeIntervalSince1970) + 60)])
            #expect(try JWTVerifier(key: key.key, now: { ES256Tests.now }).verify(token).subject == "gen")
        }
        #expect(throws: JWTError.self) { try JWTSigner.generate(.hs256) }
        #expect(try JWTSigner(hs256Secret: [UInt8](repeating: 7, count: 32)).publicJWK == nil)
    }

    @Test func es256AndRS256KeysNeverVerifyEachOthersTokens() async throws {
        let ec = try JWTSigner.generate(.es256)
        let rsa = try JWTSigner.generate(.rs256)
        let ecKey = try #require(try JSONWebKeySet.parse(Self.document([ec.publicJWK])).keys.first?.key)
        let rsaKey = try #require(try JSONWebKeySet.parse(Self.document([rsa.publicJWK])).keys.first?.key)
        let exp = JOSEValue.int(Int(Self.now.timeIntervalSince1970) + 60)
        let ecToken = try ec.sign(["sub": "e", "exp": exp])
        let rsaToken = try rsa.sign(["sub": "r", "exp": exp])
        #expect(throws: JWTError.algorithmMismatch(expected: "RS256", actual: "ES256")) {
            try JWTVerifier(key: rsaKey, now: { ES256Tests.now }).verify(ecToken)
        }
        #expect(throws: JWTError.algorithmMismatch(expected: "ES256", actual: "RS256")) {
            try JWTVerifier(key: ecKey, now: { ES256Tests.now }).verify(rsaToken)
        }
        // An ES256 header over an RSA signature (or the other way round) is just a bad signature.
        let relabelled =
            Base64URL.encode(#"{"alg":"ES256"}"#.utf8) + "." + rsaToken.split(separator: ".")[1] + "." + rsaToken.split(separator: ".")[2]
        #expect(throws: JWTError.invalidSignature) { try JWTVerifier(key: ecKey, now: { ES256Tests.now }).verify(relabelled) }
    }

    @Test func p256PrivateKeyPEMIsCheckedForItsCurve() async throws {
        let rsa = try await sharedKeys.value.0
        #expect(throws: JWTError.invalidKey("private key is not an EC key")) { try JWTSigner(es256PrivateKeyPEM: rsa.privateKeyPEM) }
        let p384 = try await runText(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"])
        #expect(throws: JWTError.invalidKey("private key is not on the P-256 curve")) { try JWTSigner(es256PrivateKeyPEM: p384) }
    }

    static func document(_ jwks: [[String: JOSEValue]?]) throws -> [UInt8] {
        Array(try JSONEncoder().encode(JOSEValue.object(["keys": .array(jwks.compactMap { $0.map(JOSEValue.object) })])))
    }
}
