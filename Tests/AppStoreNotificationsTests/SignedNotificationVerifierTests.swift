import AppStoreNotifications
import CryptoPrimitives
import Foundation
import SandboxKit
import Testing

@Suite("App Store notification verifier")
struct SignedNotificationVerifierTests {
    static let bundle = "com.example.storefront"
    /// One good chain for the suite: each costs nine openssl runs.
    static let chain = Result { try AppleCertificateChain.generate() }

    func verifier(
        roots: String? = nil, environments: Set<AppStoreNotification.Environment> = [.production, .sandbox]
    ) throws -> SignedNotificationVerifier {
        let pem = try roots ?? Self.chain.get().rootPEM
        return SignedNotificationVerifier(trustedRoots: try X509Certificate.certificates(pem: pem), bundleID: Self.bundle, environments: environments)
    }

    static func payload(id: String = "SANDBOX_0001", bundle: String = bundle, signedAt: Date = Date()) -> [String: JOSEValue] {
        [
            "notificationType": "EXTERNAL_PURCHASE_TOKEN", "subtype": "UNREPORTED", "notificationUUID": "6a1b2c3d-0000-4000-8000-000000000001",
            "version": "2.0", "signedDate": .int(Int(signedAt.timeIntervalSince1970 * 1000)),
            "externalPurchaseToken": [
                "externalPurchaseId": .string(id), "tokenCreationDate": 1_700_000_000_000, "appAppleId": 55555, "bundleId": .string(bundle),
            ],
        ]
    }

    static func sign(_ payload: [String: JOSEValue], with chain: AppleCertificateChain) throws -> String {
        var signer = try JWTSigner(es256PrivateKeyPEM: chain.leafKeyPEM)
        signer.certificateChain = chain.x5c
        return try signer.sign(payload)
    }

    /// The verifier's refusal of `signed`; nil (and a recorded issue) when it accepts it.
    static func refusal(_ verifier: SignedNotificationVerifier, _ signed: String) -> AppStoreNotificationError? {
        do throws(AppStoreNotificationError) {
            _ = try verifier.verify(signedPayload: signed)
            Issue.record("accepted")
            return nil
        } catch {
            return error
        }
    }

    static func body(_ signed: String) -> [UInt8] { Array(#"{"signedPayload":"\#(signed)"}"#.utf8) }

    @Test func goodChainIsAcceptedAndDecoded() throws {
        let notification = try verifier().verify(body: Self.body(try Self.sign(Self.payload(), with: try Self.chain.get())))
        #expect(notification.notificationType == "EXTERNAL_PURCHASE_TOKEN")
        #expect(notification.subtype == "UNREPORTED")
        #expect(notification.externalPurchaseToken?.externalPurchaseId == "SANDBOX_0001")
        #expect(notification.externalPurchaseToken?.appAppleId == 55555)
        #expect(notification.environment == .sandbox)
        #expect(notification.bundleID == Self.bundle)
    }

    @Test func chainToAnotherRootIsRefused() throws {
        let other = try AppleCertificateChain.generate()
        let signed = try Self.sign(Self.payload(), with: other)
        #expect(throws: AppStoreNotificationError.self) { try verifier().verify(signedPayload: signed) }
        // The same notification verifies under its own root: the refusal is the root's.
        #expect(try verifier(roots: other.rootPEM).verify(signedPayload: signed).notificationUUID.isEmpty == false)
        let error = Self.refusal(try verifier(), signed)
        guard case .untrustedChain(.untrusted)? = error else { Issue.record("unexpected \(String(describing: error))"); return }
        #expect(error?.isAuthenticationFailure == true)
    }

    /// A chain without one of Apple's marker OIDs: the leaf's (index 0) or the intermediate's (1).
    @Test(arguments: [0, 1])
    func chainWithoutAMarkerIsRefused(position: Int) throws {
        var options = AppleCertificateChain.Options()
        if position == 0 { options.leafMarker = false } else { options.intermediateMarker = false }
        let chain = try AppleCertificateChain.generate(options)
        let missing = position == 0 ? SignedNotificationVerifier.leafMarkerOID : SignedNotificationVerifier.intermediateMarkerOID
        let refusal = Self.refusal(try verifier(roots: chain.rootPEM), try Self.sign(Self.payload(), with: chain))
        #expect(refusal == .untrustedChain(.missingExtension(missing)))
    }

    /// The chain verifier reads a marker from the chain that verified, not
    /// from where the caller listed a certificate: given a marked
    /// intermediate that did not issue the leaf before the unmarked one that
    /// did, it refuses.
    @Test func aMarkedIntermediateThatDidNotIssueTheLeafIsRefused() throws {
        var unmarked = AppleCertificateChain.Options()
        unmarked.intermediateMarker = false
        let chain = try AppleCertificateChain.generate(unmarked)
        var decoy = AppleCertificateChain.Options()
        decoy.name = "Decoy Sandbox Apple"
        let marked = try X509Certificate(base64DER: try AppleCertificateChain.generate(decoy).x5c[1])
        let verifier = CertificateChainVerifier(trustedRoots: try X509Certificate.certificates(pem: chain.rootPEM))
        let requirements = CertificateChainVerifier.Requirements(
            chainLength: 3, extensions: [1: [SignedNotificationVerifier.intermediateMarkerOID]])
        #expect(throws: X509Error.missingExtension(SignedNotificationVerifier.intermediateMarkerOID)) {
            _ = try verifier.verify(
                leaf: try X509Certificate(base64DER: chain.x5c[0]), intermediates: [marked, try X509Certificate(base64DER: chain.x5c[1])],
                at: Date(), requirements: requirements)
        }
    }

    @Test func leafExpiredAtSignedDateIsRefused() throws {
        var options = AppleCertificateChain.Options()
        options.leafDays = 1
        let chain = try AppleCertificateChain.generate(options)
        let verifier = try verifier(roots: chain.rootPEM)
        // Valid today: accepted. Signed two days on, past the leaf's end: refused.
        _ = try verifier.verify(signedPayload: try Self.sign(Self.payload(), with: chain))
        let late = try Self.sign(Self.payload(signedAt: Date().addingTimeInterval(2 * 86_400)), with: chain)
        guard case .untrustedChain(.untrusted(let reason))? = Self.refusal(verifier, late) else { Issue.record("not refused as untrusted"); return }
        #expect(reason.contains("expired"))
    }

    @Test func tamperedPayloadIsRefused() throws {
        let chain = try Self.chain.get()
        let signed = try Self.sign(Self.payload(), with: chain)
        let other = try Self.sign(Self.payload(id: "SANDBOX_9999"), with: chain)
        var parts = signed.split(separator: ".").map(String.init)
        parts[1] = String(other.split(separator: ".")[1])
        let tampered = parts.joined(separator: ".")
        let error = Self.refusal(try verifier(), tampered)
        guard case .invalidSignature? = error else { Issue.record("unexpected \(String(describing: error))"); return }
    }

    @Test func anotherAppOrEnvironmentIsRefusedAfterVerifying() throws {
        let chain = try Self.chain.get()
        #expect(throws: AppStoreNotificationError.foreignApp("com.example.other")) {
            try verifier().verify(signedPayload: try Self.sign(Self.payload(bundle: "com.example.other"), with: chain))
        }
        #expect(throws: AppStoreNotificationError.environmentNotAccepted("Sandbox")) {
            try verifier(environments: [.production]).verify(signedPayload: try Self.sign(Self.payload(), with: chain))
        }
        #expect(
            try verifier(environments: [.production]).verify(signedPayload: try Self.sign(Self.payload(id: "a1b2"), with: chain)).environment
                == .production)
    }

    @Test func bodiesThatAreNotSignedPayloadsAreRefused() throws {
        let verifier = try verifier()
        for body in [#"{}"#, #"{"signedPayload":12}"#, "not json", #"{"signedPayload":"a.b.c"}"#] {
            #expect(throws: AppStoreNotificationError.self) { try verifier.verify(body: Array(body.utf8)) }
        }
        // A signing date far out of range is refused before any certificate is looked at.
        var absurd = Self.payload()
        absurd["signedDate"] = .double(1e300)
        #expect(throws: AppStoreNotificationError.malformedBody("payload has no signedDate in range")) {
            try verifier.verify(signedPayload: try Self.sign(absurd, with: try Self.chain.get()))
        }
        // A JWS with no x5c at all.
        let plain = try JWTSigner.generate(.es256).sign(Self.payload())
        #expect(throws: AppStoreNotificationError.malformedBody("x5c must hold three certificates")) { try verifier.verify(signedPayload: plain) }
    }
}
