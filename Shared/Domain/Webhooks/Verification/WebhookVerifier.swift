import CryptoPrimitives
import ServiceSettings
import Foundation
import BillingModel
import JSONCodec

/// Checks that a webhook request really comes from its provider, over the raw
/// body bytes exactly as received, in constant time.
public protocol WebhookVerifier: Sendable {
    /// Which provider's webhooks this verifies.
    var provider: Provider { get }
    /// The (lower-case) header carrying the signature.
    var signatureHeader: String { get }

    /// Verifies one request.
    /// - Parameters:
    ///   - header: looks a request header up by name, case-insensitively
    ///     (e.g. `{ request.headers[$0] }`).
    ///   - body: the raw body, untouched.
    ///   - remoteAddress: the peer address the request came from (the TCP
    ///     peer, or the client address a trusted proxy reported); nil if unknown.
    /// - Throws: ``WebhookVerificationError``.
    func verify(header: (String) -> String?, body: [UInt8], remoteAddress: String?) throws(WebhookVerificationError)
}

extension WebhookVerifier {
    /// Largest body verified (the webhook normaliser refuses larger ones anyway).
    public static var maximumBodySize: Int { ProviderWebhooks.maximumBodySize }

    /// Verifies with headers given as a dictionary (names compared case-insensitively).
    public func verify(headers: [String: String], body: [UInt8], remoteAddress: String?) throws(WebhookVerificationError) {
        try verify(header: { name in Self.lookup(name, in: headers.map { ($0.key, $0.value) }) }, body: body, remoteAddress: remoteAddress)
    }

    /// Verifies with headers given as ordered name/value pairs.
    public func verify(headers: [(String, String)], body: [UInt8], remoteAddress: String?) throws(WebhookVerificationError) {
        try verify(header: { name in Self.lookup(name, in: headers) }, body: body, remoteAddress: remoteAddress)
    }

    /// The same check as a `Result`.
    public func check(headers: [(String, String)], body: [UInt8], remoteAddress: String?) -> Result<Void, WebhookVerificationError> {
        do {
            try verify(headers: headers, body: body, remoteAddress: remoteAddress)
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    static func lookup(_ name: String, in headers: [(String, String)]) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.0.lowercased() == wanted }?.1
    }
}

/// The HMAC check both providers share.
enum HexHMACCheck {
    static func run(
        header name: String, algorithm: DigestAlgorithm, secret: Secret,
        header: (String) -> String?, body: [UInt8]
    ) throws(WebhookVerificationError) {
        guard body.count <= JSONValue.maximumBodySize else { throw .bodyTooLarge(bytes: body.count) }
        guard let signature = header(name), !signature.allSatisfy(\.isWhitespace) else { throw .missingSignature(header: name) }
        // Constant-time comparison of the hex signature with our HMAC of the body
        // (case-insensitive hex, surrounding spaces ignored); the algorithm is the
        // provider's, fixed in code, never taken from the request.
        guard verifyHexSignature(expectedAlgorithm: algorithm, secret: secret.bytes, body: body, signatureHex: signature) else {
            throw .badSignature(header: name)
        }
    }
}
