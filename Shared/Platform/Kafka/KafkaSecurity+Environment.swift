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
        let securityProtocol = reader.enumeration("KAFKA_SECURITY_PROTOCOL", default: SecurityProtocol.plaintext)
        var security = KafkaSecurity(securityProtocol: securityProtocol)
        let protocolName = "KAFKA_SECURITY_PROTOCOL is \(securityProtocol.rawValue)"

        // MARK: SASL
        var mechanism: SASLMechanism?
        if let raw = reader.environment["KAFKA_SASL_MECHANISM"], ["GSSAPI", "OAUTHBEARER"].contains(raw.uppercased()) {
            reader.report(
                "KAFKA_SASL_MECHANISM",
                "\(raw.uppercased()) is not supported (it needs settings Storefront does not pass); use SCRAM-SHA-512, SCRAM-SHA-256 or PLAIN")
        } else {
            mechanism = reader.enumeration("KAFKA_SASL_MECHANISM", as: SASLMechanism.self)
        }
        let username = reader.string("KAFKA_SASL_USERNAME")
        let password = reader.secret("KAFKA_SASL_PASSWORD")
        if securityProtocol.usesSASL {
            if reader.environment["KAFKA_SASL_MECHANISM"] == nil {
                reader.report("KAFKA_SASL_MECHANISM", "required when \(protocolName): PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512")
            }
            if username == nil { reader.report("KAFKA_SASL_USERNAME", "required when \(protocolName)") }
            if password == nil, reader.environment["KAFKA_SASL_PASSWORD_FILE"] == nil {
                reader.report("KAFKA_SASL_PASSWORD", "required when \(protocolName) (or KAFKA_SASL_PASSWORD_FILE)")
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
            for name in ["KAFKA_SASL_MECHANISM", "KAFKA_SASL_USERNAME", "KAFKA_SASL_PASSWORD", "KAFKA_SASL_PASSWORD_FILE"]
            where reader.environment[name] != nil {
                reader.report(name, "is set, but \(protocolName); SASL applies only with sasl_ssl or sasl_plaintext")
            }
        }

        // MARK: TLS
        let caPath = reader.string("KAFKA_SSL_CA_LOCATION")
        let certificatePath = reader.string("KAFKA_SSL_CERTIFICATE_LOCATION")
        let keyPath = reader.string("KAFKA_SSL_KEY_LOCATION")
        let caLocation = readableFile(&reader, "KAFKA_SSL_CA_LOCATION", caPath)
        let certificate = readableFile(&reader, "KAFKA_SSL_CERTIFICATE_LOCATION", certificatePath)
        let key = readableFile(&reader, "KAFKA_SSL_KEY_LOCATION", keyPath)
        let keyPassword = reader.secret("KAFKA_SSL_KEY_PASSWORD")
        let algorithm = reader.enumeration("KAFKA_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM", default: EndpointIdentification.https)
        if securityProtocol.usesTLS {
            if (reader.environment["KAFKA_SSL_CERTIFICATE_LOCATION"] == nil) != (reader.environment["KAFKA_SSL_KEY_LOCATION"] == nil) {
                let missing = reader.environment["KAFKA_SSL_KEY_LOCATION"] == nil ? "KAFKA_SSL_KEY_LOCATION" : "KAFKA_SSL_CERTIFICATE_LOCATION"
                reader.report(
                    missing, "required with the other one: a client certificate needs both KAFKA_SSL_CERTIFICATE_LOCATION and KAFKA_SSL_KEY_LOCATION")
            }
            if reader.environment["KAFKA_SSL_KEY_LOCATION"] == nil {
                for name in ["KAFKA_SSL_KEY_PASSWORD", "KAFKA_SSL_KEY_PASSWORD_FILE"] where reader.environment[name] != nil {
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
            for name in tlsVariables where reader.environment[name] != nil {
                reader.report(name, "is set, but \(protocolName); TLS settings apply only with ssl or sasl_ssl")
            }
        }
        return security
    }

    /// `ssl.endpoint.identification.algorithm`.
    enum EndpointIdentification: String, CaseIterable {
        case https, none
    }

    static let tlsVariables = [
        "KAFKA_SSL_CA_LOCATION", "KAFKA_SSL_CERTIFICATE_LOCATION", "KAFKA_SSL_KEY_LOCATION",
        "KAFKA_SSL_KEY_PASSWORD", "KAFKA_SSL_KEY_PASSWORD_FILE", "KAFKA_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM",
    ]

    /// `path` (read from `name`) if it names a readable file; librdkafka would
    /// fail later, less clearly.
    static func readableFile(_ reader: inout ConfigReader, _ name: String, _ path: String?) -> String? {
        guard let path else { return nil }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            FileManager.default.isReadableFile(atPath: path)
        else {
            reader.report(name, "cannot read the file \(path)")
            return nil
        }
        return path
    }
}
