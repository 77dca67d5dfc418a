import CryptoPrimitives
import Foundation
import Testing

/// `email_verified`: JSON true or the string "true" (as some identity
/// providers send it) is verified; anything else is not, and never malformed.
@Suite("JWT email_verified claim")
struct JWTEmailVerifiedTests {
    @Test(arguments: [
        (JOSEValue.bool(true), true),
        (.string("true"), true),
        (.bool(false), false),
        (.string("false"), false),
        (.string("TRUE"), false),
        (.string("yes"), false),
        (.string(" true"), false),
        (.int(1), false),
        (.double(1), false),
        (.null, false),
        (.array([.bool(true)]), false),
        (.object(["value": .bool(true)]), false),
    ])
    func claimValues(value: JOSEValue, verified: Bool) throws {
        let claims = try JWTClaims(raw: ["sub": .string("u"), "email": .string("a@example.com"), "email_verified": value])
        #expect(claims.emailVerified == verified, "\(value)")
        #expect(claims["email_verified"] == value)
    }

    @Test func absentIsNotVerified() throws {
        #expect(try JWTClaims(raw: ["sub": .string("u"), "email": .string("a@example.com")]).emailVerified == false)
        #expect(try JWTClaims(raw: [:]).emailVerified == false)
    }

    @Test func survivesSigningAndVerification() throws {
        let secret = Array("email-verified-secret-0123456789abcdef".utf8)
        let exp = JOSEValue.int(Int(Date().timeIntervalSince1970) + 600)
        let signer = try JWTSigner(hs256Secret: secret)
        let verifier = JWTVerifier(key: try .hs256(secret: secret))
        let verified = try verifier.verify(
            signer.sign(["sub": .string("u"), "email": .string("a@example.com"), "email_verified": .bool(true), "exp": exp]))
        #expect(verified.emailVerified)
        let asString = try verifier.verify(signer.sign(["sub": .string("u"), "email_verified": .string("true"), "exp": exp]))
        #expect(asString.emailVerified)
        let unverified = try verifier.verify(
            signer.sign(["sub": .string("u"), "email": .string("a@example.com"), "email_verified": .bool(false), "exp": exp]))
        #expect(!unverified.emailVerified)
    }
}
