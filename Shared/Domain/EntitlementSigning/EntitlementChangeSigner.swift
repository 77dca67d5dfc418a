import CryptoPrimitives
import Kafka
import ServiceSettings

/// Signs the projector's entitlement changes before they are published
/// (``EntitlementChangeSignature``), with the private key only the projector holds.
public struct EntitlementChangeSigner: Sendable {
    let signer: RecordSigner

    /// The id of the signing key (its thumbprint), for the start-up log line.
    public var keyID: String { signer.keyID }

    public init(_ signer: RecordSigner) {
        self.signer = signer
    }

    /// Reads `ENTITLEMENT_SIGNING_KEY` (or `_FILE`); problems are collected
    /// in `reader` and nil returned.
    public static func fromEnvironment(_ reader: inout ConfigReader) -> EntitlementChangeSigner? {
        let key = reader.required.secret(.entitlementSigningKey)
        guard !key.isEmpty else { return nil }
        do {
            return EntitlementChangeSigner(try RecordSigner(privateKeyPEM: key.reveal()))
        } catch {
            // Never the key itself: the reason names only what is wrong with it.
            reader.report(.entitlementSigningKey, "not an unencrypted P-256 private key in PEM (\(error))")
            return nil
        }
    }

    /// `message` with its signature header (any earlier one replaced).
    /// - Throws: `CryptoError.signingFailed` when OpenSSL fails.
    public func signed(_ message: KafkaProducerMessage) throws(CryptoError) -> KafkaProducerMessage {
        var signed = message
        let signature = try signer.sign(EntitlementChangeSignature.fields(topic: message.topic, key: message.key, value: message.value))
        signed.headers.removeAll { $0.name == EntitlementChangeSignature.headerName }
        signed.headers.append(KafkaHeader(EntitlementChangeSignature.headerName, signature))
        return signed
    }
}
