import CryptoPrimitives
import Foundation
import Testing

/// RFC 8725 §3.11, explicit typing: a header's `typ`, when present, must say
/// the token is an identity or access token. JWTs made for something else and
/// signed with the same keys (an OpenID back-channel logout token, a security
/// event, a DPoP proof) never pass as a user's token, even with valid claims.
@Suite struct JWTTypeTests {
    static let secret = Array("typ-tests-\(String(repeating: "x", count: 32))".utf8)
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    static let claims = #"{"sub":"alice","exp":1800000000}"#

    static func signed(header: String) -> String {
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        return input + "." + Base64URL.encode(HMAC.sha256(key: secret, message: Array(input.utf8)))
    }

    static func verify(_ header: String) throws -> JWTClaims {
        try JWTVerifier(key: try .hs256(secret: secret), now: { now }).verify(signed(header: header))
    }

    @Test(arguments: [
        #"{"alg":"HS256"}"#, #"{"alg":"HS256","typ":"JWT"}"#, #"{"alg":"HS256","typ":"jwt"}"#,
        #"{"alg":"HS256","typ":"at+jwt"}"#, #"{"alg":"HS256","typ":"application/at+JWT"}"#, #"{"alg":"HS256","typ":"application/jwt"}"#,
    ])
    func identityAndAccessTokensPass(header: String) throws {
        #expect(try Self.verify(header).subject == "alice")
    }

    @Test(arguments: ["logout+jwt", "secevent+jwt", "dpop+jwt", "JOSE", "application/logout+jwt", "", "jwt "])
    func otherTypesAreRefused(type: String) {
        #expect(throws: JWTError.unacceptedType(type)) { try Self.verify(#"{"alg":"HS256","typ":"\#(type)"}"#) }
    }

    @Test func aTypThatIsNotAShortStringIsMalformed() {
        for typ in ["1", "null", #"["JWT"]"#, "\"\(String(repeating: "j", count: 65))\""] {
            #expect(throws: JWTError.malformed("typ must be a string of at most 64 bytes"), "\(typ)") {
                try Self.verify(#"{"alg":"HS256","typ":\#(typ)}"#)
            }
        }
        #expect(!JWTError.unacceptedType("logout+jwt").description.isEmpty)
    }
}
