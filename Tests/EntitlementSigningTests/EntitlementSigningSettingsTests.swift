import CryptoPrimitives
import EntitlementSigning
import Foundation
import Kafka
import ServiceSettings
import TestSupport
import Testing

/// `ENTITLEMENT_SIGNING_KEY` (the projector's) and
/// `ENTITLEMENT_VERIFY_KEYS_FILE` (the consumers'): what they accept, and
/// that a problem never shows key material.
@Suite struct EntitlementSigningSettingsTests {
    static func temporaryFile(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("entitlement-keys-\(UUID().uuidString).pem").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Generates a key pair with the `openssl` command, as scripts/stack.sh and deploy/make-secrets.sh do.
    static func opensslKeyPair() async throws -> (privatePEM: String, publicPEM: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("entitlement-openssl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let privatePath = directory.appendingPathComponent("private.pem").path, publicPath = directory.appendingPathComponent("public.pem").path
        _ = try await ChildProcess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", privatePath])
        _ = try await ChildProcess.run(["openssl", "pkey", "-in", privatePath, "-pubout", "-out", publicPath])
        return (try String(contentsOfFile: privatePath, encoding: .utf8), try String(contentsOfFile: publicPath, encoding: .utf8))
    }

    @Test func opensslKeysSignAndVerifyThroughTheSettings() async throws {
        let current = try await Self.opensslKeyPair(), previous = try await Self.opensslKeyPair()
        let privateFile = try Self.temporaryFile(current.privatePEM)
        let bundle = try Self.temporaryFile(current.publicPEM + previous.publicPEM)
        var reader = ConfigReader(Environment(["ENTITLEMENT_SIGNING_KEY_FILE": privateFile, "ENTITLEMENT_VERIFY_KEYS_FILE": bundle]))
        let signer = try #require(EntitlementChangeSigner.fromEnvironment(&reader))
        let verifier = try #require(EntitlementChangeVerifier.fromEnvironment(&reader))
        #expect(reader.problems.isEmpty)
        #expect(verifier.keyIDs.count == 2 && verifier.keyIDs.contains(signer.keyID))
        let signed = try signer.signed(KafkaProducerMessage(topic: "storefront.entitlements.v1", key: "u", value: Array("{}".utf8)))
        let record = KafkaConsumerRecord(
            topic: signed.topic, partition: 0, offset: 0, key: signed.key, value: signed.value, headers: signed.headers)
        #expect(verifier.rejection(of: record) == nil)

        // The previous key's signatures verify too (a rotation); a key not in the file does not.
        var previousReader = ConfigReader(Environment(["ENTITLEMENT_SIGNING_KEY": previous.privatePEM]))
        let previousSigner = try #require(EntitlementChangeSigner.fromEnvironment(&previousReader))
        let old = try previousSigner.signed(KafkaProducerMessage(topic: "storefront.entitlements.v1", key: "u", value: Array("{}".utf8)))
        #expect(
            verifier.rejection(
                of: KafkaConsumerRecord(topic: old.topic, partition: 0, offset: 1, key: old.key, value: old.value, headers: old.headers)) == nil)
    }

    @Test func bothSettingsAreRequired() {
        var reader = ConfigReader(Environment([:]))
        #expect(EntitlementChangeSigner.fromEnvironment(&reader) == nil)
        #expect(EntitlementChangeVerifier.fromEnvironment(&reader) == nil)
        #expect(Set(reader.problems.map(\.variable)) == ["ENTITLEMENT_SIGNING_KEY", "ENTITLEMENT_VERIFY_KEYS_FILE"])
    }

    @Test func unusableKeysAreProblemsThatShowNoKeyMaterial() async throws {
        let pair = try await Self.opensslKeyPair()
        // A public key where the private one belongs, a private key where public ones belong, a missing file.
        var reader = ConfigReader(
            Environment(["ENTITLEMENT_SIGNING_KEY": pair.publicPEM, "ENTITLEMENT_VERIFY_KEYS_FILE": try Self.temporaryFile(pair.privatePEM)]))
        #expect(EntitlementChangeSigner.fromEnvironment(&reader) == nil)
        #expect(EntitlementChangeVerifier.fromEnvironment(&reader) == nil)
        var missing = ConfigReader(Environment(["ENTITLEMENT_VERIFY_KEYS_FILE": "/nonexistent/keys.pem"]))
        #expect(EntitlementChangeVerifier.fromEnvironment(&missing) == nil)
        let problems = reader.problems + missing.problems
        #expect(problems.map(\.variable) == ["ENTITLEMENT_SIGNING_KEY", "ENTITLEMENT_VERIFY_KEYS_FILE", "ENTITLEMENT_VERIFY_KEYS_FILE"])
        let body = { (pem: String) in pem.split(separator: "\n").dropFirst().dropLast().joined() }
        for problem in problems {
            #expect(!problem.message.contains(body(pair.privatePEM).prefix(20)) && !problem.message.contains(body(pair.publicPEM).prefix(20)))
        }
    }
}
