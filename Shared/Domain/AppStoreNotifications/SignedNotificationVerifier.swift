import CryptoPrimitives
import Foundation

/// Verifies App Store Server Notifications V2 as Apple's
/// app-store-server-library does (its `SignedDataVerifier`, offline mode):
///
/// 1. the JWS header is ES256 with an `x5c` of exactly three certificates;
/// 2. the leaf, through the intermediate, chains to one of the configured
///    roots (only those: Apple Root CA - G3 in production, the sandbox's own
///    in tests), every certificate valid at the payload's `signedDate`;
/// 3. the leaf carries Apple's marker OID 1.2.840.113635.100.6.11.1 and the
///    intermediate 1.2.840.113635.100.6.2.1;
/// 4. the JWS signature verifies with the leaf's key;
/// 5. the payload names this app's bundle id and an accepted environment.
///
/// Checked at `signedDate`, not now, as Apple's library does offline: Apple
/// retries a notification for days with its first signature, and a leaf
/// that expired since must not turn a genuine retry away. `signedDate` is
/// read before the signature is checked, but the signature covers it, so a
/// forged date fails step 4. Revocation (OCSP) is not checked.
public struct SignedNotificationVerifier: Sendable {
    /// Marks a certificate Apple issued to sign App Store data (the leaf).
    public static let leafMarkerOID = "1.2.840.113635.100.6.11.1"
    /// Marks Apple's WWDR intermediate certificate authority.
    public static let intermediateMarkerOID = "1.2.840.113635.100.6.2.1"
    /// The longest `signedPayload` accepted (a real one is 4-6 KB: three certificates and the payload).
    public static let maximumSignedPayloadLength = 48 * 1024

    /// The year 3000 in UNIX milliseconds: any later `signedDate` is refused unread.
    static let latestSignedDate: Double = 32_503_680_000_000

    let chainVerifier: CertificateChainVerifier
    /// Notifications must name this bundle id.
    public let bundleID: String
    /// Environments accepted (`Sandbox` only on test deployments).
    public let environments: Set<AppStoreNotification.Environment>

    /// - Parameters:
    ///   - trustedRoots: the roots chains must end in.
    ///   - bundleID: the app's bundle id.
    ///   - environments: which of Apple's environments to accept.
    public init(trustedRoots: [X509Certificate], bundleID: String, environments: Set<AppStoreNotification.Environment>) {
        chainVerifier = CertificateChainVerifier(trustedRoots: trustedRoots)
        self.bundleID = bundleID
        self.environments = environments
    }

    /// Verifies a request body, `{"signedPayload": "<JWS>"}`.
    /// - Throws: ``AppStoreNotificationError``.
    public func verify(body: [UInt8]) throws(AppStoreNotificationError) -> AppStoreNotification {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any], let signed = object["signedPayload"] as? String
        else { throw .malformedBody("expected {\"signedPayload\": \"…\"}") }
        return try verify(signedPayload: signed)
    }

    /// Verifies one `signedPayload` JWS and decodes its payload.
    /// - Throws: ``AppStoreNotificationError``.
    public func verify(signedPayload: String) throws(AppStoreNotificationError) -> AppStoreNotification {
        let jws: UnverifiedJWT
        do {
            jws = try UnverifiedJWT(signedPayload, maxLength: Self.maximumSignedPayloadLength)
        } catch {
            throw .malformedBody(error.description)
        }
        guard jws.algorithm == .es256 else { throw .invalidSignature("alg is \(jws.algorithm.rawValue), not ES256") }
        guard let x5c = jws.certificateChain, x5c.count == 3 else { throw .malformedBody("x5c must hold three certificates") }
        let signingTime = try Self.signedDate(of: jws)

        let key: JWTVerificationKey
        do throws(X509Error) {
            let leaf = try X509Certificate(base64DER: x5c[0])
            let intermediate = try X509Certificate(base64DER: x5c[1])
            key = try chainVerifier.verify(
                leaf: leaf, intermediates: [intermediate], at: signingTime,
                requirements: .init(chainLength: 3, extensions: [0: [Self.leafMarkerOID], 1: [Self.intermediateMarkerOID]]))
        } catch {
            throw .untrustedChain(error)
        }
        let payload: [UInt8]
        do {
            payload = try jws.verifiedPayload(using: key)
        } catch {
            throw .invalidSignature(error.description)
        }
        let notification = try AppStoreNotification(payload: payload)
        guard notification.bundleID == bundleID else { throw .foreignApp(notification.bundleID ?? "none") }
        guard let environment = notification.environment, environments.contains(environment) else {
            throw .environmentNotAccepted(notification.environment?.rawValue ?? "unknown")
        }
        return notification
    }

    /// The unverified payload's `signedDate` (UNIX ms), the instant the chain is checked at.
    static func signedDate(of jws: UnverifiedJWT) throws(AppStoreNotificationError) -> Date {
        // Bounded before any conversion: the value is not verified yet, and a
        // huge number must be a refusal, not an overflow.
        guard let payload = try? jws.unverifiedPayload(), let milliseconds = payload["signedDate"]?.numberValue,
            milliseconds > 0, milliseconds < latestSignedDate
        else {
            throw .malformedBody("payload has no signedDate in range")
        }
        return Date(timeIntervalSince1970: milliseconds / 1000)
    }
}
