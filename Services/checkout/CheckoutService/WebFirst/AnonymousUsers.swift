import CryptoPrimitives
import Foundation
import Webhooks

/// Storefront's own users for apps that sell before sign-in
/// (`POST /api/anonymous`): a random id and an HS256 token for it, signed
/// with a secret derived from `OWNERSHIP_PROOF_KEY` for this purpose only
/// (``OwnershipProof/derivedSecret(purpose:)``), so no new secret has to be
/// deployed and the token can never pass for an identity provider's. The app
/// sends the token as any user token; `POST /api/users/alias` later moves the
/// anonymous user's purchases to the signed-in user.
struct AnonymousUsers: Sendable {
    /// The `iss` of every anonymous token.
    static let issuer = "storefront-anonymous"
    /// Every anonymous id starts with this.
    static let idPrefix = "anon_"
    /// How long a token is valid; the kit mints a new user after that (its
    /// purchases stay with the old id unless merged, so a long life is kinder).
    static let lifetime: TimeInterval = 365 * 86_400

    private let signer: JWTSigner
    /// One per key of the ownership proof's ring, the current one first: a
    /// token made before a rotation stays valid for its whole life.
    private let verifiers: [JWTVerifier]
    let now: @Sendable () -> Date

    /// nil when the ownership proof has no key (no anonymous users then).
    init?(ownership: OwnershipProof, now: @escaping @Sendable () -> Date) {
        let secrets = ownership.derivedSecrets(purpose: "anonymous-user-token")
        guard let current = secrets.first, let signer = try? JWTSigner(hs256Secret: current) else { return nil }
        let verifiers = secrets.compactMap { secret in
            (try? JWTVerificationKey.hs256(secret: secret)).map { JWTVerifier(key: $0, issuer: Self.issuer, now: now) }
        }
        guard verifiers.count == secrets.count else { return nil }
        self.signer = signer
        self.verifiers = verifiers
        self.now = now
    }

    /// A new anonymous user.
    struct Minted: Encodable, Sendable {
        var success = true
        var appUserId: String
        var token: String
        /// RFC 3339, as every time the API answers.
        var expiresAt: String
    }

    func mint() throws -> Minted {
        let id = Self.idPrefix + Hex.encode(try SecureRandom.bytes(count: 16))
        let issued = now()
        let expires = issued.addingTimeInterval(Self.lifetime)
        let token = try signer.sign([
            "iss": .string(Self.issuer), "sub": .string(id), "iat": .int(Int(issued.timeIntervalSince1970)),
            "exp": .int(Int(expires.timeIntervalSince1970)),
        ])
        return Minted(appUserId: id, token: token, expiresAt: expires.formatted(.iso8601))
    }

    /// The anonymous id of a valid anonymous token; nil for anything else
    /// (another issuer's token, a forged, expired or malformed one).
    func verify(_ token: String) -> String? {
        for verifier in verifiers {
            if let claims = try? verifier.verify(token), let subject = claims.subject, Self.isAnonymousID(subject) { return subject }
        }
        return nil
    }

    /// Whether `id` has the shape of an id ``mint()`` makes.
    static func isAnonymousID(_ id: String) -> Bool {
        id.hasPrefix(idPrefix) && id.utf8.count == idPrefix.utf8.count + 32
            && id.utf8.dropFirst(idPrefix.utf8.count).allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
