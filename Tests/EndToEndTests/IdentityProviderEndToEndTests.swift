@testable import SeedModels
import CryptoPrimitives
import Foundation
import HTTPClient
import Testing
import TestSupport

/// An app whose users sign in with an identity provider that publishes
/// rotating keys (a JWKS, ES256 and RS256 by `kid`), as Firebase Auth, Sign
/// in with Apple, Auth0, Clerk and Supabase do: it buys in the sandbox and
/// sees its entitlement, and a key rotation signs nobody out.
@Suite(.serialized) struct IdentityProviderEndToEndTests {
    static let issuer = "https://idp.example.test"

    static func token(_ signer: JWTSigner, subject: String, email: String) throws -> String {
        let now = Int(Date().timeIntervalSince1970)
        var claims: [String: JOSEValue] = ["iss": .string(issuer), "aud": .string("storefront-app"), "sub": .string(subject)]
        claims["email"] = .string(email)
        claims["email_verified"] = .bool(true)
        claims["iat"] = .int(now)
        claims["exp"] = .int(now + 3600)
        return try signer.sign(claims)
    }

    @Test func anAppSignedInThroughAJWKSProviderBuysAndKeepsItsEntitlementAcrossAKeyRotation() async throws {
        let first = try JWTSigner.generate(.es256, keyID: "key-1")
        let jwks = try LocalJWKSServer.start(publishing: [first, try JWTSigner.generate(.rs256, keyID: "key-0")])
        let stack = try await LiveStack.start(environment: [
            "AUTH_JWT_JWKS_URL": jwks.url.absoluteString, "AUTH_JWT_ISSUER": "\(Self.issuer),storefront-dev",
            // Two issuers: the identity provider's users keep their plain sub, the stack's dev tokens are dev:sub.
            "AUTH_JWT_USER_ID_PREFIXES": "\(Self.issuer)=,storefront-dev=dev",
        ])
        do {
            let subject = "idp-\(UUID().uuidString.prefix(8).lowercased())", email = "\(subject)@example.com"
            let flow = PurchaseFlow(
                stack: stack, provider: "lemonsqueezy", subject: subject, email: email,
                token: try Self.token(first, subject: subject, email: email))
            // Keys are fetched on the first token that needs them (meanwhile 503, never 401).
            _ = try await stack.eventually(timeout: .seconds(30), "the identity provider's keys loaded") {
                let response = try await stack.request(.get, stack.gateway + "/api/entitlements", token: flow.token)
                return response.status == 200 ? response : nil
            }
            _ = try await flow.buySubscription()
            #expect(try await flow.activeEntitlements().count == 1, "the JWKS-signed user sees what it bought")

            // The provider rotates: a new key is published and the old one withdrawn.
            let second = try JWTSigner.generate(.es256, keyID: "key-2")
            jwks.publish([second])
            let rotated = PurchaseFlow(
                stack: stack, provider: "lemonsqueezy", subject: subject, email: email,
                token: try Self.token(second, subject: subject, email: email))
            let seen = try await stack.eventually(timeout: .seconds(45), "a token signed with the new key accepted") {
                let response = try await stack.request(.get, stack.gateway + "/api/entitlements", token: rotated.token)
                return response.status == 200 ? response : nil
            }
            #expect(seen.status == 200)
            #expect(try await rotated.activeEntitlements().count == 1, "the rotation signed nobody out")

            // A forged kid costs no fetch storm: the JWKS host sees a bounded number of requests.
            let before = jwks.requests
            let forger = try JWTSigner.generate(.es256, keyID: "forged")
            for index in 0..<50 {
                let forged = try JWTSigner.generate(.es256, keyID: "forged-\(index)")
                let response = try await stack.request(
                    .get, stack.gateway + "/api/entitlements",
                    token: try Self.token(index.isMultiple(of: 2) ? forged : forger, subject: subject, email: email))
                #expect(response.status == 401 || response.status == 503, "a forged key answered \(response.status)")
            }
            #expect(jwks.requests - before <= 2, "\(jwks.requests - before) fetches for 50 forged kids")
        } catch {
            await stack.stop()
            await jwks.stop()
            throw error
        }
        await stack.stop()
        await jwks.stop()
    }
}
