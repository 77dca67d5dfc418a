import CryptoPrimitives
import Foundation

/// Where an app token's keys come from and what its claims must say; the
/// value a service's configuration reads (see ``TokenVerifier``).
///
/// The sources combine: static keys (an HS256 secret, an RS256 PEM key; any
/// key without a `kid`) and any number of JWKS URLs. An HS256 secret and a
/// JWKS for production tokens can serve side by side.
public struct TokenVerifierSettings: Sendable {
    /// Keys tried by algorithm, whatever the token's `kid`: at most one per algorithm is expected.
    public var staticKeys: [JWTVerificationKey]
    /// JWKS URLs whose RS256 and ES256 keys are chosen by the token's `kid`.
    public var keySetURLs: [URL]
    /// What every token's claims must satisfy, whichever key verified it.
    public var rules: JWTClaimRules
    /// How the JWKS key sets cache and refetch.
    public var policy: JWKSPolicy
    /// The longest token accepted, in bytes. Default 8 KiB.
    public var maxTokenLength: Int

    public init(
        staticKeys: [JWTVerificationKey] = [], keySetURLs: [URL] = [], rules: JWTClaimRules = JWTClaimRules(), policy: JWKSPolicy = JWKSPolicy(),
        maxTokenLength: Int = 8 * 1024
    ) {
        self.staticKeys = staticKeys
        self.keySetURLs = keySetURLs
        self.rules = rules
        self.policy = policy
        self.maxTokenLength = maxTokenLength
    }

    /// The settings of a one-key ``JWTVerifier``: its key and its rules.
    public init(_ verifier: JWTVerifier) {
        self.init(staticKeys: [verifier.key], rules: verifier.rules, maxTokenLength: verifier.maxTokenLength)
    }

    /// The algorithms some configured source can verify.
    public var algorithms: [JWTAlgorithm] {
        JWTAlgorithm.allCases.filter { algorithm in
            staticKeys.contains { $0.algorithm == algorithm } || (!keySetURLs.isEmpty && algorithm.isAsymmetric)
        }
    }
}
