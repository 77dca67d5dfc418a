import CryptoPrimitives
import EntitlementSigning
import Kafka

/// The entitlement changes' key pair for what a test builds in process: the
/// projector (its outbox relay) signs with ``signer``, the webhook-sender and
/// the checkout's stream verify with ``verifier``; a test that publishes a
/// change as the projector would signs it with ``signed(_:)``. One key pair
/// per test process, made on first use. (A stack started by
/// `scripts/stack.sh` has a key pair of its own, its files named in `stack.env`.)
public enum TestEntitlementSigning {
    static let keys: RecordSigner = {
        do {
            return try RecordSigner.generate()
        } catch {
            preconditionFailure("cannot generate the test entitlement signing key: \(error)")
        }
    }()

    /// The projector's signer under the test key.
    public static let signer = EntitlementChangeSigner(keys)

    /// The consumers' verifier: the test key's public half only.
    public static let verifier: EntitlementChangeVerifier = {
        do {
            return EntitlementChangeVerifier(try RecordVerifier(publicKeysPEM: try keys.publicKeyPEM()))
        } catch {
            preconditionFailure("cannot load the test entitlement key's public half: \(error)")
        }
    }()

    /// `message` signed as the projector signs it.
    public static func signed(_ message: KafkaProducerMessage) -> KafkaProducerMessage {
        do {
            return try signer.signed(message)
        } catch {
            preconditionFailure("cannot sign a test entitlement change: \(error)")
        }
    }
}
