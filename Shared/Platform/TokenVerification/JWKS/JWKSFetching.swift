import Foundation

/// Where a ``JWKSKeySet`` gets its document: over HTTP in a service
/// (``HTTPJWKSFetcher``), from a fake in tests.
public protocol JWKSFetching: Sendable {
    /// Fetches the JWKS at `url` once (no retries: the key set decides when to try again).
    /// - Throws: ``JWKSFetchError``.
    func fetch(_ url: URL) async throws(JWKSFetchError) -> JWKSDocument
}

/// A fetched JWKS response: the body, unparsed, and how long it may be kept.
public struct JWKSDocument: Sendable {
    /// The response body.
    public var body: [UInt8]
    /// The lifetime the response's `Cache-Control` gave (``CacheLifetime``), if any.
    public var maxAge: Duration?

    public init(body: [UInt8], maxAge: Duration? = nil) {
        self.body = body
        self.maxAge = maxAge
    }
}

/// Why a JWKS could not be fetched. Descriptions carry no response body.
public enum JWKSFetchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No response: connection refused, DNS, TLS, a broken transfer.
    case unreachable(String)
    /// The fetch took longer than the policy's timeout.
    case timeout
    /// The host answered with another status than 200.
    case status(Int)
    /// The body was larger than the policy allows.
    case tooLarge(limit: Int)

    public var description: String {
        switch self {
        case .unreachable(let reason): "JWKS host unreachable: \(reason.prefix(200))"
        case .timeout: "JWKS fetch timed out"
        case .status(let code): "JWKS host answered HTTP \(code)"
        case .tooLarge(let limit): "JWKS response larger than \(limit) bytes"
        }
    }
}
