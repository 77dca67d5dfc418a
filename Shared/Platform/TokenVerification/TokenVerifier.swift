import CryptoPrimitives
import Foundation
import Telemetry

/// Verifies app tokens against every configured source: static keys (HS256
/// secret, RS256 PEM key) and JWKS key sets chosen by `kid`.
///
/// How a key is chosen, by the token's `alg` (which must be one a configured
/// key verifies; `none` never is):
/// - HS256: only a configured secret. A key set never holds a symmetric key,
///   so a public key can never be used as an HMAC secret.
/// - RS256, ES256: a static key of that algorithm first (a PEM key ignores
///   `kid`); when none verifies, the key sets:
///   - with a `kid`: the keys with that `kid` in any set. None: each set may
///     refetch (``JWKSKeySet/refreshForUnknownKey()``, rate-limited), then
///     the token is refused. A key whose algorithm differs is never tried.
///   - without a `kid`: only when all sets together hold exactly one key, of
///     the token's algorithm; with several the token is refused.
/// Then the claims must pass ``TokenVerifierSettings/rules``.
public struct TokenVerifier: Sendable {
    /// The sources and rules.
    public let settings: TokenVerifierSettings
    /// One per ``TokenVerifierSettings/keySetURLs``, in that order.
    public let keySets: [JWKSKeySet]

    /// - Parameters:
    ///   - settings: the sources and rules.
    ///   - fetcher: how JWKS documents are fetched; nil for an ``HTTPJWKSFetcher`` of
    ///     its own (made only when there are URLs).
    ///   - clock: the key sets' monotonic clock.
    ///   - logger: key set fetches are logged here.
    ///   - metrics: the key sets' metrics, if any.
    public init(
        settings: TokenVerifierSettings, fetcher: (any JWKSFetching)? = nil, clock: JWKSClock = .continuous, logger: Logger,
        metrics: JWKSMetrics? = nil
    ) {
        self.settings = settings
        let urls = settings.keySetURLs
        let source: (any JWKSFetching)? = urls.isEmpty ? nil : fetcher ?? HTTPJWKSFetcher(policy: settings.policy)
        keySets =
            source.map { source in
                urls.map { JWKSKeySet(url: $0, fetcher: source, policy: settings.policy, clock: clock, logger: logger, metrics: metrics) }
            } ?? []
    }

    /// Whether every key set has been loaded once (true without key sets).
    public var isReady: Bool { keySets.allSatisfy(\.isLoaded) }

    /// The background service keeping the key sets fresh; nil without key sets.
    public var refresher: JWKSRefresher? { keySets.isEmpty ? nil : JWKSRefresher(keySets: keySets) }

    /// Checks `token` and returns its claims.
    /// - Throws: ``TokenVerificationError/rejected(_:)`` naming the first check
    ///   that failed, or ``TokenVerificationError/keysUnavailable`` when a key
    ///   set that might hold its key was never loaded.
    public func verify(_ token: String) async throws(TokenVerificationError) -> JWTClaims {
        let jwt: UnverifiedJWT
        do {
            jwt = try UnverifiedJWT(token, maxLength: settings.maxTokenLength)
        } catch {
            throw .rejected(error)
        }
        let claims = try await verifiedClaims(jwt)
        do {
            try settings.rules.check(claims)
        } catch {
            throw .rejected(error)
        }
        return claims
    }

    private func verifiedClaims(_ jwt: UnverifiedJWT) async throws(TokenVerificationError) -> JWTClaims {
        let staticKeys = settings.staticKeys.filter { $0.algorithm == jwt.algorithm }
        let useKeySets = jwt.algorithm.isAsymmetric && !keySets.isEmpty
        guard !staticKeys.isEmpty || useKeySets else {
            let expected = settings.algorithms.map(\.rawValue).joined(separator: "/")
            throw .rejected(.algorithmMismatch(expected: expected, actual: jwt.algorithm.rawValue))
        }
        if let claims = try first(staticKeys, verifying: jwt, final: !useKeySets) { return claims }
        let candidates = try await keySetCandidates(for: jwt)
        if let claims = try first(candidates.map(\.key), verifying: jwt, final: true) { return claims }
        throw .rejected(.invalidSignature)
    }

    /// The claims under the first of `keys` whose signature verifies; nil when
    /// none does and `final` is false (more keys follow), otherwise the refusal.
    private func first(_ keys: [JWTVerificationKey], verifying jwt: UnverifiedJWT, final: Bool) throws(TokenVerificationError) -> JWTClaims? {
        for key in keys {
            do {
                return try jwt.verifiedClaims(using: key)
            } catch {
                // Another key may have made the signature; any other failure is the token's.
                guard error == .invalidSignature else { throw .rejected(error) }
            }
        }
        if final, !keys.isEmpty { throw .rejected(.invalidSignature) }
        return nil
    }

    private func keySetCandidates(for jwt: UnverifiedJWT) async throws(TokenVerificationError) -> [JSONWebKey] {
        guard let keyID = jwt.keyID else {
            // Without a kid only one key overall is unambiguous; that needs every set loaded.
            await refetch(keySets.filter { !$0.isLoaded })
            guard isReady else { throw .keysUnavailable }
            let all = keySets.flatMap { $0.keys?.keys ?? [] }
            guard all.count == 1 else { throw .rejected(.keyIDRequired) }
            guard all[0].algorithm == jwt.algorithm else {
                throw .rejected(.algorithmMismatch(expected: all[0].algorithm.rawValue, actual: jwt.algorithm.rawValue))
            }
            return all
        }
        var found = keySets.flatMap { $0.keys(withID: keyID) }
        if found.isEmpty {
            await refetch(keySets)
            found = keySets.flatMap { $0.keys(withID: keyID) }
        }
        guard !found.isEmpty else {
            // A set that never loaded might hold it: not the token's fault (yet).
            throw isReady ? .rejected(.unknownKeyID) : .keysUnavailable
        }
        let matching = found.filter { $0.algorithm == jwt.algorithm }
        guard !matching.isEmpty else {
            throw .rejected(.algorithmMismatch(expected: found[0].algorithm.rawValue, actual: jwt.algorithm.rawValue))
        }
        return matching
    }

    /// Lets each of `sets` fetch again (rate-limited per set), concurrently.
    private func refetch(_ sets: [JWKSKeySet]) async {
        guard !sets.isEmpty else { return }
        await withTaskGroup(of: Void.self) { group in
            for set in sets {
                group.addTask { _ = await set.refreshForUnknownKey() }
            }
        }
    }
}
