import CryptoPrimitives
import Foundation
import Synchronization
import Telemetry
import TestSupport
import TokenVerification

/// A JWKS host in memory: serves a document (or fails), counts fetches, and
/// can hold every fetch for a while so concurrent callers pile up.
final class FakeJWKSFetcher: JWKSFetching {
    struct State {
        var document: JWKSDocument
        var failure: JWKSFetchError?
        var fetches = 0
        var delay: Duration = .zero
    }

    let state: Mutex<State>

    init(publishing signers: [JWTSigner], maxAge: Duration? = .seconds(600)) {
        state = Mutex(State(document: JWKSDocument(body: LocalJWKSServer.document(signers), maxAge: maxAge)))
    }

    func fetch(_ url: URL) async throws(JWKSFetchError) -> JWKSDocument {
        let (answer, failure, delay) = state.withLock { state in
            state.fetches += 1
            return (state.document, state.failure, state.delay)
        }
        if delay > .zero { try? await Task.sleep(for: delay) }
        if let failure { throw failure }
        return answer
    }

    var fetches: Int { state.withLock { $0.fetches } }

    func publish(_ signers: [JWTSigner], maxAge: Duration? = .seconds(600)) {
        state.withLock {
            $0.document = JWKSDocument(body: LocalJWKSServer.document(signers), maxAge: maxAge)
            $0.failure = nil
        }
    }

    func serve(_ body: [UInt8]) {
        state.withLock {
            $0.document = JWKSDocument(body: body)
            $0.failure = nil
        }
    }

    func fail(_ failure: JWKSFetchError) { state.withLock { $0.failure = failure } }
    func hold(for delay: Duration) { state.withLock { $0.delay = delay } }
}

/// Time that moves only when a test says so.
final class ManualClock: Sendable {
    private let seconds = Mutex(1000.0)
    var clock: JWKSClock { JWKSClock { [self] in self.seconds.withLock { $0 } } }
    func advance(_ duration: Duration) { seconds.withLock { $0 += duration.inSecondsForTests } }
}

extension Duration {
    var inSecondsForTests: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// Signs tokens the way an identity provider would: `iss`, `aud`, `sub`, `iat`, `exp`.
enum Tokens {
    static let issuer = "https://id.example.com"
    static let audience = "storefront-app"

    static func sign(
        _ signer: JWTSigner, sub: String = "user-1", extra: [String: JOSEValue] = [:], issuedAgo: Int = 10, expiresIn: Int = 600
    )
        throws -> String
    {
        let now = Int(Date().timeIntervalSince1970)
        var claims: [String: JOSEValue] = [
            "iss": .string(issuer), "aud": .string(audience), "sub": .string(sub), "iat": .int(now - issuedAgo), "exp": .int(now + expiresIn),
        ]
        claims.merge(extra) { _, new in new }
        return try signer.sign(claims)
    }

    static func rules(maxAge: Duration? = nil) -> JWTClaimRules {
        JWTClaimRules(issuers: [issuer], audiences: [audience], leeway: .seconds(30), maxAge: maxAge)
    }
}

/// A verifier over one fake host, with a manual clock.
struct Harness {
    let fetcher: FakeJWKSFetcher
    let clock = ManualClock()
    let verifier: TokenVerifier

    init(
        publishing signers: [JWTSigner], staticKeys: [JWTVerificationKey] = [], urls: Int = 1, policy: JWKSPolicy = JWKSPolicy(),
        rules: JWTClaimRules = Tokens.rules()
    ) {
        fetcher = FakeJWKSFetcher(publishing: signers)
        let settings = TokenVerifierSettings(
            staticKeys: staticKeys, keySetURLs: (0..<urls).map { URL(string: "https://id\($0).example.com/.well-known/jwks.json")! }, rules: rules,
            policy: policy)
        verifier = TokenVerifier(
            settings: settings, fetcher: fetcher, clock: clock.clock, logger: Logger(service: "token-verification-tests", minimumLevel: .critical))
    }

    var keySet: JWKSKeySet { verifier.keySets[0] }

    /// The verification outcome as a value: the subject, or the error.
    func outcome(_ token: String) async -> Result<String?, TokenVerificationError> {
        do {
            return .success(try await verifier.verify(token).subject)
        } catch {
            return .failure(error)
        }
    }
}

extension Result where Failure == TokenVerificationError {
    /// Refused as a bad token (401), as opposed to accepted or keys unavailable.
    var isRejected: Bool {
        if case .failure(.rejected) = self { return true }
        return false
    }
}
