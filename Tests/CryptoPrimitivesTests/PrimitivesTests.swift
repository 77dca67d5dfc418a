import CryptoPrimitives
import Foundation
import Testing

@Suite("HMAC, SHA-2, encodings, constant-time compare")
struct PrimitivesTests {
    /// RFC 4231 test cases: (case, key, data, HMAC-SHA256, HMAC-SHA512).
    static let rfc4231: [(Int, [UInt8], [UInt8], String, String)] = [
        (
            1, [UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
            "87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cdedaa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854"
        ),
        (
            2, Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
            "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"
        ),
        (
            3, [UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe",
            "fa73b0089d56a284efb0f0756c890be9b1b5dbdd8ee81a3655f83e33b2279d39bf3e848279a722c806b485a47e67c807b946a337bee8942674278859e13292fb"
        ),
        (
            4, Array(1...25), [UInt8](repeating: 0xcd, count: 50),
            "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
            "b0ba465637458c6990e5a8c5f61d4af7e576d97ff94b872de76f8050361ee3dba91ca5c11aa25eb4d679275cc5788063a5f19741120c4f2de2adebeb10a298dd"
        ),
        (
            6, [UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
            "80b24263c7c1a3ebb71493c1dd7be8b49b46d1f41b4aeec1121b013783f8f3526b56d037e05f2598bd0fd2215d6a1e5295e64f73f63f0aec8b915a985d786598"
        ),
        (
            7, [UInt8](repeating: 0xaa, count: 131),
            Array(
                "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm."
                    .utf8),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
            "e37b6a775dc87dbaa4dfa9f96e5e3ffddebd71f8867289865df5a32d20cdc944b6022cac3c4982b10d5eeb55c3e4de15134676fb6de0446065c97440fa8c6a58"
        ),
    ]

    @Test(arguments: rfc4231.map(\.0))
    func rfc4231Vector(testCase: Int) throws {
        let (_, key, data, sha256, sha512) = try #require(Self.rfc4231.first { $0.0 == testCase })
        #expect(Hex.encode(HMAC.sha256(key: key, message: data)) == sha256)
        #expect(Hex.encode(HMAC.sha512(key: key, message: data)) == sha512)
    }

    @Test func sha256KnownAnswers() {
        #expect(Hex.encode(SHA256.hash("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Hex.encode(SHA256.hash([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func hmacSHA512MatchesTheOpenSSLCommand() async throws {
        let key = "whsec-\(UUID().uuidString)"
        let payload = Array(#"{"event":"charge.success","data":{"id":\#(Int.random(in: 1...1_000_000)),"amount":5000}}"#.utf8)
        let output = try await runText(["openssl", "dgst", "-sha512", "-hmac", key], input: payload)
        let expected = try #require(output.split(separator: "=").last).trimmingCharacters(in: .whitespaces)
        #expect(expected.count == 128)
        #expect(Hex.encode(HMAC.sha512(key: key.utf8, message: payload)) == expected)
    }

    @Test func constantTimeCompare() {
        let mac = HMAC.sha256(key: "k".utf8, message: "m".utf8)
        var flipped = mac
        flipped[31] ^= 1
        #expect(constantTimeEquals(mac, mac))
        #expect(!constantTimeEquals(mac, flipped))
        #expect(!constantTimeEquals(mac, mac.dropLast()))
        #expect(!constantTimeEquals(mac, mac + [0]))
        #expect(!constantTimeEquals([UInt8](), [0]))
        #expect(constantTimeEquals([UInt8](), [UInt8]()))
    }

    @Test func base64URLRoundTripAndStrictness() throws {
        for count in 0..<70 {
            let bytes = try SecureRandom.bytes(count: count)
            let encoded = Base64URL.encode(bytes)
            #expect(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"))
            #expect(Base64URL.decode(encoded) == bytes)
        }
        #expect(Base64URL.encode("foo".utf8) == "Zm9v")
        #expect(Base64URL.encode("fo".utf8) == "Zm8")
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
        #expect(Base64URL.decode("-_8") == [0xfb, 0xff])
        #expect(Base64URL.decode("Zm8=") == nil) // padding
        #expect(Base64URL.decode("Zm+v") == nil) // standard alphabet
        #expect(Base64URL.decode("Z") == nil) // impossible length
        #expect(Base64URL.decode("Zh") == nil) // non-zero unused bits
    }

    @Test func hexEncodingAndDecoding() {
        #expect(Hex.encode([0x00, 0xab, 0xff]) == "00abff")
        #expect(Hex.decode("00ABff") == [0x00, 0xab, 0xff])
        #expect(Hex.decode("abc") == nil)
        #expect(Hex.decode("zz") == nil)
        #expect(Hex.decode("") == [])
    }

    @Test func secureRandomBytes() throws {
        let first = try SecureRandom.bytes(count: 32)
        let second = try SecureRandom.bytes(count: 32)
        #expect(first.count == 32)
        #expect(first != second)
    }

    @Test func webhookSignature() {
        let secret = Array("shh-\(UUID().uuidString)".utf8)
        let body = Array(#"{"meta":{"event_name":"order_created"}}"#.utf8)
        let sha256 = Hex.encode(HMAC.sha256(key: secret, message: body))
        let sha512 = Hex.encode(HMAC.sha512(key: secret, message: body))
        #expect(verifyHexSignature(expectedAlgorithm: .sha256, secret: secret, body: body, signatureHex: sha256))
        #expect(verifyHexSignature(expectedAlgorithm: .sha256, secret: secret, body: body, signatureHex: sha256.uppercased()))
        #expect(verifyHexSignature(expectedAlgorithm: .sha512, secret: secret, body: body, signatureHex: " \(sha512)\n"))
        #expect(!verifyHexSignature(expectedAlgorithm: .sha512, secret: secret, body: body, signatureHex: sha256))
        #expect(!verifyHexSignature(expectedAlgorithm: .sha256, secret: secret, body: body + [0x20], signatureHex: sha256))
        #expect(!verifyHexSignature(expectedAlgorithm: .sha256, secret: Array("other".utf8), body: body, signatureHex: sha256))
        #expect(!verifyHexSignature(expectedAlgorithm: .sha256, secret: secret, body: body, signatureHex: String(sha256.dropLast(2))))
        #expect(!verifyHexSignature(expectedAlgorithm: .sha256, secret: secret, body: body, signatureHex: "zz" + sha256.dropFirst(2)))
        #expect(!verifyHexSignature(expectedAlgorithm: .sha256, secret: secret, body: body, signatureHex: ""))
    }
}
