import CryptoPrimitives
import Foundation

/// What must hold for any bearer token the checkout sees, checked by
/// `fuzz-jwt`. The first input byte picks how the rest is used:
///   0: the whole token, as sent;
///   1: the payload (claims) bytes of a token correctly signed with the key;
///   2: the header bytes of a token with valid claims, correctly signed;
///   3: base64url of the bytes must decode back to them.
/// A violated property crashes (`preconditionFailure`).
public enum JWTFuzzing {
    static let secret = Array("fuzz-jwt-secret-of-thirty-two-bytes!".utf8)
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static let verifier: JWTVerifier = {
        guard let key = try? JWTVerificationKey.hs256(secret: secret) else { preconditionFailure("no HS256 key") }
        return JWTVerifier(key: key, issuer: "fuzz-issuer", audience: "fuzz-app", now: { JWTFuzzing.now })
    }()

    public static func check(_ input: [UInt8]) {
        guard let mode = input.first else { return }
        let rest = Array(input.dropFirst())
        switch mode % 4 {
        case 0:
            let token = String(decoding: rest, as: UTF8.self)
            if let claims = try? verifier.verify(token) {
                // Only a token signed with the key can pass: random bytes never are.
                expectAccepted(claims)
                let parts = token.split(separator: ".", omittingEmptySubsequences: false)
                guard parts.count == 3, Base64URL.decode(parts[2]) == HMAC.sha256(key: secret, message: Array("\(parts[0]).\(parts[1])".utf8)) else {
                    preconditionFailure("a token verified without the key's signature")
                }
            }
        case 1:
            let header = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
            checkSigned(header: header, payload: Base64URL.encode(rest))
        case 2:
            let claims = #"{"sub":"u","iss":"fuzz-issuer","aud":"fuzz-app","exp":1900000000}"#
            let token = checkSigned(header: Base64URL.encode(rest), payload: Base64URL.encode(Array(claims.utf8)))
            if token != nil, !header(rest, namesOnly: "HS256") {
                preconditionFailure("a token whose header does not name HS256 verified")
            }
        default:
            guard Base64URL.decode(Base64URL.encode(rest)) == rest else { preconditionFailure("base64url does not round-trip") }
        }
    }

    /// Signs `header.payload` correctly, verifies it, and checks that a flipped
    /// signature bit is always refused; returns the claims when it verified.
    @discardableResult
    static func checkSigned(header: String, payload: String) -> JWTClaims? {
        let input = "\(header).\(payload)"
        var signature = HMAC.sha256(key: secret, message: Array(input.utf8))
        let claims = try? verifier.verify("\(input).\(Base64URL.encode(signature))")
        if let claims { expectAccepted(claims) }
        signature[Int(signature[0]) % signature.count] ^= 0x01
        do {
            _ = try verifier.verify("\(input).\(Base64URL.encode(signature))")
            preconditionFailure("a token with a flipped signature bit verified")
        } catch .invalidSignature {
            // Expected once the header passed; a header that fails earlier fails the same way signed or not.
        } catch {
            if claims != nil { preconditionFailure("a token that verified failed with \(error) once its signature was flipped") }
        }
        return claims
    }

    static func expectAccepted(_ claims: JWTClaims) {
        guard claims.issuer == "fuzz-issuer", claims.audience.contains("fuzz-app"),
            let expiresAt = claims.expiresAt, now < expiresAt.addingTimeInterval(60),
            claims.notBefore.map({ now.addingTimeInterval(60) >= $0 }) ?? true
        else {
            preconditionFailure("a token verified with the wrong issuer, audience or validity period")
        }
    }

    /// True when `bytes` is a JSON object whose `alg` is exactly `alg`.
    static func header(_ bytes: [UInt8], namesOnly alg: String) -> Bool {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else { return false }
        return object["alg"] as? String == alg
    }
}
