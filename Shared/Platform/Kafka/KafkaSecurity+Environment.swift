import ServiceSettings
import Foundation
import Telemetry

/// Reads the brokers' security settings from the environment and checks
/// them at start-up, so a mistake is reported by name before any client
/// connects (librdkafka itself would only log connection failures):
///
/// | variable | librdkafka property | values |
/// | --- | --- | --- |
/// | `KAFKA_SECURITY_PROTOCOL` | `security.protocol` | `plaintext` (default), `ssl`, `sasl_plaintext`, `sasl_ssl` |
/// | `KAFKA_SASL_MECHANISM` | `sasl.mechanism` | `PLAIN`, `SCRAM-SHA-256`, `SCRAM-SHA-512` (required with SASL) |
/// | `KAFKA_SASL_USERNAME` | `sasl.username` | required with SASL |
/// | `KAFKA_SASL_PASSWORD` or `_FILE` | `sasl.password` | required with SASL; never logged |
/// | `KAFKA_SSL_CA_LOCATION` | `ssl.ca.location` | a readable PEM file; unset: the system's CAs |
/// | `KAFKA_SSL_CERTIFICATE_LOCATION`, `KAFKA_SSL_KEY_LOCATION` | `ssl.certificate.location`, `ssl.key.location` | readable PEM files, both or neither (client certificates) |
/// | `KAFKA_SSL_KEY_PASSWORD` or `_FILE` | `ssl.key.password` | with an encrypted key; never logged |
/// | `KAFKA_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM` | `ssl.endpoint.identification.algorithm` | `https` (default: the certificate must name the broker's host) or `none` |
///
/// SASL settings without a SASL protocol, or TLS settings without a TLS
/// one, are reported rather than ignored (they would silently not apply).
/// `sasl_plaintext` and `none` are logged as warnings at every start.
extension KafkaSecurity {
    public static func fromEnvironment(_ reader: inout ConfigReader, logger: Logger? = nil) -> KafkaSecurity {
        let securityProtocol = reader.enumeration(.kafkaSecurityProtocol, default: SecurityProtocol.plaintext)
        var security = KafkaSecurity(securityProtocol: securityProtocol)
        let protocolName = "KAFKA_SECURITY_PROTOCOL is \(securityProtocol.rawValue)"

        // MARK: SASL
        var mechanism: SASLMechanism?
        if let raw = reader.rawValue(.kafkaSASLMechanism), ["GSSAPI", "OAUTHBEARER"].contains(raw.uppercased()) {
            reader.report(
                .kafkaSASLMechanism,
                "\(raw.uppercased()) is not supported (it needs settings Storefront does not pass); use SCRAM-SHA-512, SCRAM-SHA-256 or PLAIN")
        } else {
            mechanism = reader.enumeration(.kafkaSASLMechanism, as: SASLMechanism.self)
        }
        let username = reader.string(.kafkaSASLUsername)
        let password = reader.secret(.kafkaSASLPassword)
        if securityProtocol.usesSASL {
            if !reader.isSet(.kafkaSASLMechanism) {
                reader.report(.kafkaSASLMechanism, "required when \(protocolName): PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512")
            }
            if username == nil { reader.report(.kafkaSASLUsername, "required when \(protocolName)") }
            if password == nil, !reader.isFileSet(.kafkaSASLPassword) {
                reader.report(.kafkaSASLPassword, "required when \(protocolName) (or KAFKA_SASL_PASSWORD_FILE)")
            }
            if let mechanism, let username, let password {
                security.sasl = KafkaSecurity.SASL(mechanism: mechanism, username: username, password: KafkaSecurity.Password(password.reveal()))
            }
            if securityProtocol == .saslPlaintext {
                logger?.warning(
                    "KAFKA_SECURITY_PROTOCOL is sasl_plaintext: the broker connection is not encrypted"
                        + (mechanism == .plain ? " and the PLAIN mechanism sends the password as it is" : "")
                        + "; use sasl_ssl outside a trusted network")
            }
        } else {
            for name in reader.setNames(of: [.kafkaSASLMechanism, .kafkaSASLUsername, .kafkaSASLPassword]) {
                reader.report(name, "is set, but \(protocolName); SASL applies only with sasl_ssl or sasl_plaintext")
            }
        }

        // MARK: TLS
        let caPath = reader.string(.kafkaSSLCALocation)
        let certificatePath = reader.string(.kafkaSSLCertificateLocation)
        let keyPath = reader.string(.kafkaSSLKeyLocation)
        let caLocation = readableFile(&reader, .kafkaSSLCALocation, caPath)
        let certificate = readableFile(&reader, .kafkaSSLCertificateLocation, certificatePath)
        let key = readableFile(&reader, .kafkaSSLKeyLocation, keyPath)
        let keyPassword = reader.secret(.kafkaSSLKeyPassword)
        let algorithm = reader.enumeration(.kafkaSSLEndpointIdentificationAlgorithm, default: EndpointIdentification.https)
        if securityProtocol.usesTLS {
            let hasKey = reader.isSet(.kafkaSSLKeyLocation)
            if reader.isSet(.kafkaSSLCertificateLocation) != hasKey {
                let missing: Setting = hasKey ? .kafkaSSLCertificateLocation : .kafkaSSLKeyLocation
                reader.report(
                    missing, "required with the other one: a client certificate needs both KAFKA_SSL_CERTIFICATE_LOCATION and KAFKA_SSL_KEY_LOCATION")
            }
            if !hasKey {
                for name in reader.setNames(of: [.kafkaSSLKeyPassword]) {
                    reader.report(name, "is set, but KAFKA_SSL_KEY_LOCATION is not")
                }
            }
            security.tls = KafkaSecurity.TLS(
                caLocation: caLocation, certificateLocation: certificate, keyLocation: key,
                keyPassword: keyPassword.map { KafkaSecurity.Password($0.reveal()) },
                verifyHostname: algorithm == .https)
            if algorithm == .none {
                logger?.warning("KAFKA_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM is none: the broker's certificate is not checked against its host name")
            }
        } else {
            for name in reader.setNames(of: tlsSettings) {
                reader.report(name, "is set, but \(protocolName); TLS settings apply only with ssl or sasl_ssl")
            }
        }
        return security
    }

    /// `ssl.endpoint.identification.algorithm`.
    enum EndpointIdentification: String, CaseIterable {
        case https, none
    }

    static let tlsSettings: [Setting] = [
        .kafkaSSLCALocation, .kafkaSSLCertificateLocation, .kafkaSSLKeyLocation, .kafkaSSLKeyPassword, .kafkaSSLEndpointIdentificationAlgorithm,
    ]

    /// `path` (read from `setting`) if it names a readable file; librdkafka would
    /// fail later, less clearly.
    static func readableFile(_ reader: inout ConfigReader, _ setting: Setting, _ path: String?) -> String? {
        guard let path else { return nil }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            FileManager.default.isReadableFile(atPath: path)
        else {
            reader.report(setting, "cannot read the file \(path)")
            return nil
        }
        return path
    }
}
