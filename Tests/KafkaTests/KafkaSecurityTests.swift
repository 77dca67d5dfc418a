import ServiceSettings
import Foundation
@testable import Kafka
import ServiceRuntime
import Telemetry
import Testing

/// TLS and SASL: the librdkafka properties each setting becomes, what the
/// linked librdkafka accepts, and how the environment is read and checked.
/// The test broker (Tansu) speaks neither TLS nor SASL, so no test here
/// connects with them: librdkafka accepting the properties (it builds the
/// TLS context and checks the SASL mechanism when a client is created) is
/// as far as this machine can go.
@Suite struct KafkaSecurityTests {
    static let password = "pw-zz9-never-logged"
    static let keyPassword = "key-zz9-never-logged"
    /// A CA bundle every Debian machine has (package ca-certificates).
    static let caFile = "/etc/ssl/certs/ca-certificates.crt"

    static func client(_ security: KafkaSecurity) -> KafkaClientConfiguration {
        KafkaClientConfiguration(bootstrapServers: ["127.0.0.1:1"], logHandler: nil, security: security)
    }

    // MARK: - Mapping

    @Test func plaintextSetsOnlyTheProtocol() {
        let properties = KafkaProducerConfiguration(client: Self.client(.plaintext)).properties
        #expect(properties["security.protocol"] == "plaintext")
        #expect(properties.keys.filter { $0.hasPrefix("sasl.") || $0.hasPrefix("ssl.") }.isEmpty)
    }

    @Test func saslSSLMapsEverySetting() {
        let security = KafkaSecurity(
            securityProtocol: .saslSSL,
            sasl: .init(mechanism: .scramSHA512, username: "storefront-checkout", password: .init(Self.password)),
            tls: .init(
                caLocation: "/run/secrets/kafka/ca.pem", certificateLocation: "/c.pem", keyLocation: "/k.pem",
                keyPassword: .init(Self.keyPassword), verifyHostname: false))
        for properties in [
            KafkaProducerConfiguration(client: Self.client(security)).properties,
            KafkaConsumerConfiguration(client: Self.client(security), groupID: "g").properties,
            Self.client(security).properties,
        ] {
            #expect(properties["security.protocol"] == "sasl_ssl")
            #expect(properties["sasl.mechanism"] == "SCRAM-SHA-512")
            #expect(properties["sasl.username"] == "storefront-checkout")
            #expect(properties["sasl.password"] == Self.password)
            #expect(properties["ssl.ca.location"] == "/run/secrets/kafka/ca.pem")
            #expect(properties["ssl.certificate.location"] == "/c.pem")
            #expect(properties["ssl.key.location"] == "/k.pem")
            #expect(properties["ssl.key.password"] == Self.keyPassword)
            #expect(properties["ssl.endpoint.identification.algorithm"] == "none")
        }
        // Never in a description or a dump.
        var dumped = ""
        dump(Self.client(security), to: &dumped)
        for text in [String(describing: security), "\(security)", dumped, String(reflecting: security)] {
            #expect(!text.contains("zz9"), "\(text)")
        }
        #expect(String(describing: security).contains("sasl.username=storefront-checkout"))
    }

    @Test func settingsOfAnotherProtocolAreLeftOut() {
        let sasl = KafkaSecurity.SASL(mechanism: .plain, username: "u", password: .init("p"))
        let tlsOnly = Self.client(KafkaSecurity(securityProtocol: .ssl, sasl: sasl, tls: .init(caLocation: "/ca.pem"))).properties
        #expect(tlsOnly["security.protocol"] == "ssl")
        #expect(tlsOnly["sasl.username"] == nil && tlsOnly["sasl.password"] == nil)
        #expect(tlsOnly["ssl.ca.location"] == "/ca.pem")
        #expect(tlsOnly["ssl.endpoint.identification.algorithm"] == "https")
        let saslOnly = Self.client(KafkaSecurity(securityProtocol: .saslPlaintext, sasl: sasl, tls: .init(caLocation: "/ca.pem"))).properties
        #expect(saslOnly["sasl.mechanism"] == "PLAIN")
        #expect(saslOnly.keys.filter { $0.hasPrefix("ssl.") }.isEmpty)
    }

    /// The names and values are librdkafka's own: creating clients with them
    /// succeeds (an unknown property or value, a missing TLS or SCRAM build,
    /// or an unreadable CA file would fail here).
    @Test(arguments: [KafkaSecurity.SASLMechanism.plain, .scramSHA256, .scramSHA512])
    func librdkafkaAcceptsTheProperties(mechanism: KafkaSecurity.SASLMechanism) async throws {
        let security = KafkaSecurity(
            securityProtocol: .saslSSL, sasl: .init(mechanism: mechanism, username: "u", password: .init(Self.password)),
            tls: .init(caLocation: Self.caFile))
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: Self.client(security)))
        _ = await producer.shutdown(timeout: .zero)
        _ = try KafkaAdmin(
            configuration: Self.client(KafkaSecurity(securityProtocol: .ssl, tls: .init(caLocation: Self.caFile, verifyHostname: false))))
        _ = try KafkaAdmin(configuration: Self.client(KafkaSecurity(securityProtocol: .saslPlaintext, sasl: security.sasl)))
    }

    @Test func librdkafkaRejectsAnUnreadableCAWithoutShowingThePassword() {
        let security = KafkaSecurity(
            securityProtocol: .saslSSL, sasl: .init(mechanism: .plain, username: "u", password: .init(Self.password)),
            tls: .init(caLocation: "/nonexistent/ca.pem"))
        let error = #expect(throws: KafkaError.self) {
            _ = try KafkaProducer(configuration: KafkaProducerConfiguration(client: Self.client(security)))
        }
        #expect(!"\(String(describing: error))".contains("zz9"))
    }

    // MARK: - The environment

    static func read(_ values: [String: String]) -> (KafkaSecurity, [ConfigurationProblem], [String]) {
        let sink = CapturingLogSink()
        var reader = ConfigReader(Environment(["KAFKA_BROKERS": "kafka:9092"].merging(values) { _, new in new }))
        let settings = MessagingSettings.fromEnvironment(&reader, service: "tests", logger: Logger(service: "tests", sink: sink))
        return (settings.client.security, reader.problems, sink.lines)
    }

    static func temporaryFile(_ contents: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("kafka-security-\(UUID().uuidString)").path
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func unsetMeansPlaintext() {
        let (security, problems, logged) = Self.read([:])
        #expect(security == .plaintext)
        #expect(problems.isEmpty)
        #expect(logged.isEmpty)
    }

    @Test func saslSSLFromTheEnvironmentWithThePasswordInAFile() throws {
        let passwordFile = try Self.temporaryFile(Self.password + "\n")
        defer { try? FileManager.default.removeItem(atPath: passwordFile) }
        let (security, problems, logged) = Self.read([
            "KAFKA_SECURITY_PROTOCOL": "SASL_SSL", "KAFKA_SASL_MECHANISM": "scram-sha-512", "KAFKA_SASL_USERNAME": "storefront",
            "KAFKA_SASL_PASSWORD_FILE": passwordFile, "KAFKA_SSL_CA_LOCATION": Self.caFile,
        ])
        #expect(problems.isEmpty, "\(problems)")
        #expect(logged.isEmpty, "\(logged)")
        let properties = Self.client(security).properties
        #expect(properties["security.protocol"] == "sasl_ssl")
        #expect(properties["sasl.mechanism"] == "SCRAM-SHA-512")
        #expect(properties["sasl.username"] == "storefront")
        #expect(properties["sasl.password"] == Self.password)
        #expect(properties["ssl.ca.location"] == Self.caFile)
        #expect(properties["ssl.endpoint.identification.algorithm"] == "https")
    }

    @Test func saslPlaintextAndNoHostnameCheckAreWarnedAboutWithoutThePassword() throws {
        let (_, plainProblems, plainLogged) = Self.read([
            "KAFKA_SECURITY_PROTOCOL": "sasl_plaintext", "KAFKA_SASL_MECHANISM": "PLAIN", "KAFKA_SASL_USERNAME": "u",
            "KAFKA_SASL_PASSWORD": Self.password,
        ])
        #expect(plainProblems.isEmpty)
        #expect(plainLogged.count == 1 && plainLogged[0].contains("not encrypted") && plainLogged[0].contains("PLAIN"), "\(plainLogged)")
        #expect(!plainLogged.joined().contains("zz9"))

        let (security, problems, logged) = Self.read(["KAFKA_SECURITY_PROTOCOL": "ssl", "KAFKA_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM": "none"])
        #expect(problems.isEmpty)
        #expect(!security.tls.verifyHostname)
        #expect(logged.count == 1 && logged[0].contains("host name"), "\(logged)")
    }

    @Test func everyMistakeIsReportedByNameAndNoneShowsASecret() throws {
        // SASL without its settings.
        let (_, missing, _) = Self.read(["KAFKA_SECURITY_PROTOCOL": "sasl_ssl"])
        #expect(missing.map(\.variable) == ["KAFKA_SASL_MECHANISM", "KAFKA_SASL_USERNAME", "KAFKA_SASL_PASSWORD"], "\(missing)")

        // Values that are not librdkafka's, or that Storefront cannot pass.
        let (_, badValues, _) = Self.read(["KAFKA_SECURITY_PROTOCOL": "tls"])
        #expect(badValues.map(\.variable) == ["KAFKA_SECURITY_PROTOCOL"])
        #expect(badValues.first?.message.contains("plaintext, ssl, sasl_plaintext, sasl_ssl") == true, "\(badValues)")
        let (_, gssapi, _) = Self.read([
            "KAFKA_SECURITY_PROTOCOL": "sasl_ssl", "KAFKA_SASL_MECHANISM": "GSSAPI", "KAFKA_SASL_USERNAME": "u", "KAFKA_SASL_PASSWORD": Self.password,
        ])
        #expect(gssapi.map(\.variable) == ["KAFKA_SASL_MECHANISM"], "\(gssapi)")
        #expect(gssapi.first?.message.contains("not supported") == true)

        // Settings that would silently not apply.
        let (_, stray, _) = Self.read([
            "KAFKA_SASL_USERNAME": "u", "KAFKA_SASL_PASSWORD": Self.password, "KAFKA_SSL_CA_LOCATION": Self.caFile,
        ])
        #expect(Set(stray.map(\.variable)) == ["KAFKA_SASL_USERNAME", "KAFKA_SASL_PASSWORD", "KAFKA_SSL_CA_LOCATION"], "\(stray)")
        #expect(stray.allSatisfy { $0.message.contains("KAFKA_SECURITY_PROTOCOL is plaintext") }, "\(stray)")

        // Files: unreadable, or half a client certificate.
        let (_, files, _) = Self.read([
            "KAFKA_SECURITY_PROTOCOL": "ssl", "KAFKA_SSL_CA_LOCATION": "/nonexistent/ca.pem", "KAFKA_SSL_CERTIFICATE_LOCATION": Self.caFile,
            "KAFKA_SSL_KEY_PASSWORD": Self.keyPassword,
        ])
        #expect(files.map(\.variable) == ["KAFKA_SSL_CA_LOCATION", "KAFKA_SSL_KEY_LOCATION", "KAFKA_SSL_KEY_PASSWORD"], "\(files)")

        // A password file that cannot be read is named; both spellings at once too.
        let (_, passwordFile, _) = Self.read([
            "KAFKA_SECURITY_PROTOCOL": "sasl_ssl", "KAFKA_SASL_MECHANISM": "PLAIN", "KAFKA_SASL_USERNAME": "u",
            "KAFKA_SASL_PASSWORD_FILE": "/nonexistent/password",
        ])
        #expect(passwordFile.map(\.variable) == ["KAFKA_SASL_PASSWORD_FILE"], "\(passwordFile)")
        let file = try Self.temporaryFile(Self.password)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let (_, both, _) = Self.read([
            "KAFKA_SECURITY_PROTOCOL": "sasl_ssl", "KAFKA_SASL_MECHANISM": "PLAIN", "KAFKA_SASL_USERNAME": "u",
            "KAFKA_SASL_PASSWORD": Self.password, "KAFKA_SASL_PASSWORD_FILE": file,
        ])
        #expect(both.map(\.variable) == ["KAFKA_SASL_PASSWORD"], "\(both)")

        for problems in [missing, badValues, gssapi, stray, files, passwordFile, both] {
            #expect(!ConfigurationError(problems: problems).description.contains("zz9"))
        }
    }
}
