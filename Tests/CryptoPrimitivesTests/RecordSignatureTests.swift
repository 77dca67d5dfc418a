import CryptoPrimitives
import Foundation
import Testing

/// Detached record signatures (``RecordSigner``, ``RecordVerifier``): the
/// format pinned against openssl and an independent thumbprint, and every
/// way a signature must fail.
@Suite("Record signatures")
struct RecordSignatureTests {
    static let fields: [[UInt8]] = [Array("storefront.entitlements.v1".utf8), Array("user-1".utf8), Array(#"{"id":"e1"}"#.utf8)]

    static func verifier(_ signers: RecordSigner...) throws -> RecordVerifier {
        try RecordVerifier(publicKeysPEM: signers.map { try $0.publicKeyPEM() }.joined(separator: "\n"))
    }

    @Test func aSignatureVerifiesWithThePublicHalfAndNamesItsKey() throws {
        let signer = try RecordSigner.generate()
        let signature = try signer.sign(Self.fields)
        #expect(try Self.verifier(signer).check(signature, over: Self.fields) == .valid(keyID: signer.keyID))
        // kid (43) "." base64url of 64 bytes (86): small enough for a header on every record.
        #expect(signature.utf8.count == 130)
        #expect(signature.hasPrefix(signer.keyID + "."))
    }

    @Test func theSignedBytesAndTheKeyIDAreWhatTheFormatSays() async throws {
        let keys = try await sharedP256Keys.value
        let signer = try RecordSigner(privateKeyPEM: keys.privateKeyPEM)
        // RFC 7638 thumbprint, computed by Python from openssl's coordinates.
        let script = """
            import sys, json, hashlib, base64
            b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
            jwk = {"crv": "P-256", "kty": "EC", "x": b64(bytes.fromhex(sys.argv[1])), "y": b64(bytes.fromhex(sys.argv[2]))}
            print(b64(hashlib.sha256(json.dumps(jwk, separators=(",", ":"), sort_keys=True).encode()).digest()))
            """
        #expect(signer.keyID == (try await runText(["python3", "-c", script, Hex.encode(keys.x), Hex.encode(keys.y)])))

        // The context, a zero byte, then each field after its 4-byte big-endian length; openssl checks it.
        let signature = try signer.sign([Array("ab".utf8), Array("cde".utf8)])
        let raw = try #require(Base64URL.decode(signature.split(separator: ".")[1]))
        let der = try #require(ECDSASignatureFormat.der(fromRaw: raw))
        let signed = "storefront-record-signature-v1\u{0}\u{0}\u{0}\u{0}\u{2}ab\u{0}\u{0}\u{0}\u{3}cde"
        #expect(try await keys.opensslVerifyDER(signed, signature: der))
        #expect(try await !keys.opensslVerifyDER(signed + "x", signature: der), "openssl's check can fail")
    }

    @Test func changedFieldsDoNotVerify() throws {
        let signer = try RecordSigner.generate()
        let verifier = try Self.verifier(signer)
        let signature = try signer.sign(Self.fields)
        var otherTopic = Self.fields
        otherTopic[0] = Array("storefront.purchase-events.v1".utf8)
        var otherKey = Self.fields
        otherKey[1] = Array("user-2".utf8)
        var otherValue = Self.fields
        otherValue[2] = Array(#"{"id":"e2"}"#.utf8)
        for fields in [otherTopic, otherKey, otherValue, Array(Self.fields.prefix(2)), Self.fields + [[]]] {
            #expect(verifier.check(signature, over: fields) == .invalid)
        }
        // The lengths keep the split: the same bytes cut elsewhere are other fields.
        let split = try signer.sign([Array("ab".utf8), Array("c".utf8)])
        #expect(verifier.check(split, over: [Array("a".utf8), Array("bc".utf8)]) == .invalid)
        #expect(verifier.check(split, over: [Array("ab".utf8), Array("c".utf8)]) == .valid(keyID: signer.keyID))
    }

    @Test func anotherKeysSignatureIsNotAccepted() throws {
        let real = try RecordSigner.generate(), forger = try RecordSigner.generate()
        let verifier = try Self.verifier(real)
        let forged = try forger.sign(Self.fields)
        #expect(verifier.check(forged, over: Self.fields) == .unknownKey)
        // Naming the real key's id does not help the forger.
        let relabelled = real.keyID + "." + forged.split(separator: ".")[1]
        #expect(verifier.check(relabelled, over: Self.fields) == .invalid)
    }

    @Test func thePreviousKeyIsAcceptedBesideTheCurrentOne() throws {
        let previous = try RecordSigner.generate(), current = try RecordSigner.generate()
        let verifier = try Self.verifier(current, previous)
        #expect(verifier.keyIDs == [previous.keyID, current.keyID].sorted())
        #expect(verifier.check(try previous.sign(Self.fields), over: Self.fields) == .valid(keyID: previous.keyID))
        #expect(verifier.check(try current.sign(Self.fields), over: Self.fields) == .valid(keyID: current.keyID))
        // Once the previous key is removed, its signatures are refused.
        #expect(try Self.verifier(current).check(try previous.sign(Self.fields), over: Self.fields) == .unknownKey)
    }

    @Test func malformedSignaturesAreRefused() throws {
        let signer = try RecordSigner.generate()
        let verifier = try Self.verifier(signer)
        let good = try signer.sign(Self.fields)
        let signaturePart = String(good.split(separator: ".")[1])
        for text in [
            "", ".", signer.keyID, signer.keyID + ".", good + ".x", signer.keyID + "." + signaturePart + "=",
            signer.keyID + "." + String(signaturePart.dropLast(2)), signer.keyID + "." + signaturePart.replacingOccurrences(of: "-", with: "+"),
        ] where text != good {
            #expect(verifier.check(text, over: Self.fields) == .malformed, "\(text)")
        }
    }

    @Test func keysThatAreNotP256AreRefused() async throws {
        let rsa = try await sharedKeys.value.0
        let ec = try await sharedP256Keys.value
        let publicPEM = try String(contentsOfFile: ec.publicKeyPath, encoding: .utf8)
        #expect(throws: CryptoError.self) { try RecordVerifier(publicKeysPEM: rsa.publicKeyPEM) }
        #expect(throws: CryptoError.self) { try RecordVerifier(publicKeysPEM: ec.privateKeyPEM) }
        #expect(throws: CryptoError.self) { try RecordVerifier(publicKeysPEM: "") }
        #expect(throws: CryptoError.self) { try RecordVerifier(publicKeysPEM: "junk\n" + publicPEM) }
        #expect(throws: CryptoError.self) { try RecordVerifier(publicKeysPEM: publicPEM + "junk") }
        #expect(throws: CryptoError.self) { try RecordSigner(privateKeyPEM: rsa.privateKeyPEM) }
        #expect(throws: CryptoError.self) { try RecordSigner(privateKeyPEM: publicPEM) }
        // openssl's own public key file loads, and names the same key as its private half.
        #expect(try RecordVerifier(publicKeysPEM: publicPEM).keyIDs == [try RecordSigner(privateKeyPEM: ec.privateKeyPEM).keyID])
    }
}
