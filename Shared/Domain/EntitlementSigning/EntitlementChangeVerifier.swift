import CryptoPrimitives
import Foundation
import Kafka
import ServiceSettings

/// Checks that an entitlement change read from the topic is the projector's
/// (``EntitlementChangeSignature``), with its public keys only: whoever
/// holds this cannot sign.
public struct EntitlementChangeVerifier: Sendable {
    /// Why a record was refused: the `reason` label of
    /// `storefront_entitlement_changes_rejected_total`.
    public enum Rejection: String, Sendable, CaseIterable {
        /// No signature header.
        case unsigned
        /// More than one signature header, or one that is not `<kid>.<signature>`.
        case malformed
        /// Signed with a key none of the configured public keys is.
        case unknownKey = "unknown_key"
        /// A configured key's id, but not its signature over this topic, key and value.
        case badSignature = "bad_signature"
    }

    let verifier: RecordVerifier

    /// The ids (thumbprints) of the accepted keys, for the start-up log line.
    public var keyIDs: [String] { verifier.keyIDs }

    public init(_ verifier: RecordVerifier) {
        self.verifier = verifier
    }

    /// The largest key file read: a handful of PEM public keys is far less.
    static let maximumKeyFileBytes = 64 * 1024

    /// Reads `ENTITLEMENT_VERIFY_KEYS_FILE`; problems are collected in
    /// `reader` and nil returned.
    public static func fromEnvironment(_ reader: inout ConfigReader) -> EntitlementChangeVerifier? {
        let path = reader.required.string(.entitlementVerifyKeysFile)
        guard !path.isEmpty else { return nil }
        guard let data = FileManager.default.contents(atPath: path), data.count <= maximumKeyFileBytes,
            let bundle = String(data: data, encoding: .utf8)
        else {
            reader.report(.entitlementVerifyKeysFile, "cannot read a PEM file of at most \(maximumKeyFileBytes) bytes at that path")
            return nil
        }
        do {
            return EntitlementChangeVerifier(try RecordVerifier(publicKeysPEM: bundle))
        } catch {
            reader.report(.entitlementVerifyKeysFile, "not one or more P-256 public keys in PEM (\(error))")
            return nil
        }
    }

    /// Whether `record` carries exactly one signature header holding a
    /// configured key's signature over its topic, key and value.
    /// - Returns: nil when it does, else why not.
    public func rejection(of record: KafkaConsumerRecord) -> Rejection? {
        let headers = record.headers.filter { $0.name == EntitlementChangeSignature.headerName }
        guard let header = headers.first else { return .unsigned }
        // Two signatures would leave the choice to whoever added the second.
        guard headers.count == 1, let bytes = header.value, let text = String(validating: bytes, as: UTF8.self) else { return .malformed }
        switch verifier.check(text, over: EntitlementChangeSignature.fields(topic: record.topic, key: record.key, value: record.value)) {
        case .valid: return nil
        case .malformed: return .malformed
        case .unknownKey: return .unknownKey
        case .invalid: return .badSignature
        }
    }
}
