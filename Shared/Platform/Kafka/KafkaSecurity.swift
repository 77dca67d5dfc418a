/// How every client of this process authenticates to the brokers and
/// protects the connection: librdkafka's `security.protocol`, `sasl.*` and
/// `ssl.*` properties (librdkafka's CONFIGURATION.md). The default is
/// ``plaintext``: no TLS, no authentication (the local broker, a private network).
///
/// Passwords are ``Password`` values: printing, interpolating or dumping this
/// value (or a configuration holding it) never shows them.
public struct KafkaSecurity: Sendable, Hashable, CustomStringConvertible {
    /// `security.protocol`.
    public enum SecurityProtocol: String, Sendable, Hashable, CaseIterable {
        case plaintext
        case ssl
        case saslPlaintext = "sasl_plaintext"
        case saslSSL = "sasl_ssl"

        /// Whether clients authenticate with SASL (`sasl_plaintext`, `sasl_ssl`).
        public var usesSASL: Bool { self == .saslPlaintext || self == .saslSSL }
        /// Whether connections are TLS (`ssl`, `sasl_ssl`).
        public var usesTLS: Bool { self == .ssl || self == .saslSSL }
    }

    /// `sasl.mechanism`: the username/password mechanisms (GSSAPI and
    /// OAUTHBEARER need settings this type does not carry).
    public enum SASLMechanism: String, Sendable, Hashable, CaseIterable {
        case plain = "PLAIN"
        case scramSHA256 = "SCRAM-SHA-256"
        case scramSHA512 = "SCRAM-SHA-512"
    }

    /// SASL credentials.
    public struct SASL: Sendable, Hashable {
        public var mechanism: SASLMechanism
        /// `sasl.username`.
        public var username: String
        /// `sasl.password`.
        public var password: Password

        public init(mechanism: SASLMechanism, username: String, password: Password) {
            self.mechanism = mechanism
            self.username = username
            self.password = password
        }
    }

    /// A password that never shows up in descriptions, dumps or mirrors.
    public struct Password: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
        let value: String

        public init(_ value: String) {
            self.value = value
        }

        public var description: String { "<redacted>" }
        public var debugDescription: String { "<redacted>" }
        public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
    }

    /// TLS settings (with ``SecurityProtocol/ssl`` or ``SecurityProtocol/saslSSL``).
    public struct TLS: Sendable, Hashable {
        /// `ssl.ca.location`: a PEM file of CA certificates that sign the
        /// brokers' certificates; nil: the system's trust store.
        public var caLocation: String?
        /// `ssl.certificate.location`: this client's certificate (PEM), for brokers that require client certificates.
        public var certificateLocation: String?
        /// `ssl.key.location`: the key of ``certificateLocation`` (PEM).
        public var keyLocation: String?
        /// `ssl.key.password`: the passphrase of ``keyLocation``, if it is encrypted.
        public var keyPassword: Password?
        /// `ssl.endpoint.identification.algorithm` `https` (true, librdkafka's
        /// default) checks that the broker's certificate names the host
        /// connected to; false (`none`) does not.
        public var verifyHostname: Bool

        public init(
            caLocation: String? = nil, certificateLocation: String? = nil, keyLocation: String? = nil,
            keyPassword: Password? = nil, verifyHostname: Bool = true
        ) {
            self.caLocation = caLocation
            self.certificateLocation = certificateLocation
            self.keyLocation = keyLocation
            self.keyPassword = keyPassword
            self.verifyHostname = verifyHostname
        }
    }

    public var securityProtocol: SecurityProtocol
    /// Used only when ``securityProtocol`` is a SASL one.
    public var sasl: SASL?
    /// Used only when ``securityProtocol`` is a TLS one.
    public var tls: TLS

    public init(securityProtocol: SecurityProtocol = .plaintext, sasl: SASL? = nil, tls: TLS = TLS()) {
        self.securityProtocol = securityProtocol
        self.sasl = sasl
        self.tls = tls
    }

    /// No TLS, no authentication.
    public static let plaintext = KafkaSecurity()

    /// The protocol, mechanism, user and files; never a password.
    public var description: String {
        var parts = ["protocol=\(securityProtocol.rawValue)"]
        if securityProtocol.usesSASL, let sasl { parts += ["sasl.mechanism=\(sasl.mechanism.rawValue)", "sasl.username=\(sasl.username)"] }
        if securityProtocol.usesTLS {
            if let ca = tls.caLocation { parts.append("ssl.ca.location=\(ca)") }
            if let certificate = tls.certificateLocation { parts.append("ssl.certificate.location=\(certificate)") }
            if !tls.verifyHostname { parts.append("ssl.endpoint.identification.algorithm=none") }
        }
        return "KafkaSecurity(" + parts.joined(separator: ", ") + ")"
    }

    /// The librdkafka properties: `security.protocol` always, the SASL ones
    /// with a SASL protocol, the TLS ones with a TLS protocol.
    var properties: [String: String] {
        var result = ["security.protocol": securityProtocol.rawValue]
        if securityProtocol.usesSASL, let sasl {
            result["sasl.mechanism"] = sasl.mechanism.rawValue
            result["sasl.username"] = sasl.username
            result["sasl.password"] = sasl.password.value
        }
        if securityProtocol.usesTLS {
            result["ssl.endpoint.identification.algorithm"] = tls.verifyHostname ? "https" : "none"
            if let ca = tls.caLocation { result["ssl.ca.location"] = ca }
            if let certificate = tls.certificateLocation { result["ssl.certificate.location"] = certificate }
            if let key = tls.keyLocation { result["ssl.key.location"] = key }
            if let password = tls.keyPassword { result["ssl.key.password"] = password.value }
        }
        return result
    }
}
