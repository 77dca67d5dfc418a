/// How to reach a PostgreSQL server and how each session is set up.
///
/// Every property has a documented default. The configuration renders itself
/// into libpq keyword/value pairs for `PQconnectdbParams`; values are never
/// pasted into a conninfo string, so a password containing spaces, quotes or
/// `=` cannot change the meaning of another setting.
public struct PostgresConfiguration: Sendable, Hashable {
    /// Host name, IP address, or the directory of a Unix socket. Default `localhost`.
    public var host: String
    /// TCP port. Default 5432.
    public var port: Int
    /// Role to log in as. Default `nil` (libpq uses the operating-system user).
    public var user: String?
    /// Password. Default `nil`. Never logged and never part of `description`.
    public var password: String?
    /// Database name. Default `nil` (libpq uses the user name).
    public var database: String?
    /// TLS settings passed through to libpq. Default: libpq's own (`sslmode=prefer`).
    public var tls: TLS
    /// Statement, lock and idle-transaction limits, keepalives, TCP user
    /// timeout, connect timeout. Default: ``PostgresSessionLimits/init()``
    /// (network limits on, no statement limit); services set their preset.
    public var limits: PostgresSessionLimits
    /// `application_name` shown in `pg_stat_activity`. Default `nil`.
    public var applicationName: String?
    /// Other libpq connection keywords (for example `keepalives_idle`). Default empty.
    /// Later entries win over earlier ones and over the properties above.
    public var extraParameters: [Parameter]

    /// A libpq connection keyword and its value.
    public struct Parameter: Sendable, Hashable {
        /// The libpq keyword, such as `keepalives`.
        public var keyword: String
        /// Its value, passed verbatim.
        public var value: String
        /// Creates a keyword/value pair.
        public init(_ keyword: String, _ value: String) {
            self.keyword = keyword
            self.value = value
        }
    }

    /// TLS options, each mapped to the libpq keyword of the same name.
    public struct TLS: Sendable, Hashable {
        /// `sslmode`: `disable`, `allow`, `prefer`, `require`, `verify-ca` or `verify-full`.
        public var mode: String?
        /// `sslrootcert`: file of trusted certificate authorities.
        public var rootCertificatePath: String?
        /// `sslcert`: client certificate file.
        public var certificatePath: String?
        /// `sslkey`: client private key file.
        public var keyPath: String?
        /// Creates TLS options; every `nil` leaves libpq's default.
        public init(
            mode: String? = nil, rootCertificatePath: String? = nil,
            certificatePath: String? = nil, keyPath: String? = nil
        ) {
            self.mode = mode
            self.rootCertificatePath = rootCertificatePath
            self.certificatePath = certificatePath
            self.keyPath = keyPath
        }
    }

    /// Creates a configuration from keyword parameters.
    /// - Parameters:
    ///   - host: host name, address or socket directory.
    ///   - port: TCP port.
    ///   - user: role name.
    ///   - password: password, if the server asks for one.
    ///   - database: database name.
    ///   - tls: TLS options.
    public init(
        host: String = "localhost", port: Int = 5432, user: String? = nil,
        password: String? = nil, database: String? = nil, tls: TLS = TLS()
    ) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.tls = tls
        self.limits = PostgresSessionLimits()
        self.applicationName = nil
        self.extraParameters = []
    }

    /// Server settings every session gets, so that the text this module
    /// decodes has one known shape (ISO timestamps in UTC, hex bytea).
    static let sessionSettings: [(String, String)] = [
        ("DateStyle", "ISO, MDY"),
        ("TimeZone", "UTC"),
        ("bytea_output", "hex"),
        ("IntervalStyle", "iso_8601"),
    ]

    /// The keyword/value pairs handed to `PQconnectdbParams`.
    func keywordPairs() -> [(String, String)] {
        var pairs: [(String, String)] = [("host", host), ("port", String(port))]
        if let user { pairs.append(("user", user)) }
        if let password { pairs.append(("password", password)) }
        if let database { pairs.append(("dbname", database)) }
        if let mode = tls.mode { pairs.append(("sslmode", mode)) }
        if let path = tls.rootCertificatePath { pairs.append(("sslrootcert", path)) }
        if let path = tls.certificatePath { pairs.append(("sslcert", path)) }
        if let path = tls.keyPath { pairs.append(("sslkey", path)) }
        pairs += limits.keywordPairs
        if let applicationName { pairs.append(("application_name", applicationName)) }
        pairs.append(("client_encoding", "UTF8"))

        let settings = Self.sessionSettings + limits.serverSettings
        var options = settings.map { "-c \(Self.escapeOption($0.0))=\(Self.escapeOption($0.1))" }
        var extras: [(String, String)] = []
        for parameter in extraParameters {
            // A caller's own `options` is kept and ours added after it.
            if parameter.keyword == "options" {
                options.insert(parameter.value, at: 0)
            } else {
                extras.append((parameter.keyword, parameter.value))
            }
        }
        pairs.append(("options", options.joined(separator: " ")))
        for (keyword, value) in extras {
            pairs.removeAll { $0.0 == keyword }
            pairs.append((keyword, value))
        }
        return pairs
    }

    /// libpq splits `options` on spaces; a backslash keeps a space or backslash literal.
    static func escapeOption(_ text: String) -> String {
        var out = ""
        for character in text {
            if character == " " || character == "\\" { out.append("\\") }
            out.append(character)
        }
        return out
    }
}

extension PostgresConfiguration {
    /// Seconds to wait for the connection to be established; `nil` waits
    /// forever. The whole-second view of ``PostgresSessionLimits/connectTimeout``.
    public var connectTimeoutSeconds: Int? {
        get { limits.connectTimeout.map { Int(PostgresSessionLimits.seconds($0)) } }
        set { limits.connectTimeout = newValue.flatMap { $0 > 0 ? .seconds($0) : nil } }
    }

    /// Server-side limit for each statement, in milliseconds; `nil`: none.
    /// The millisecond view of ``PostgresSessionLimits/statementTimeout``.
    public var statementTimeoutMilliseconds: Int? {
        get { limits.statementTimeout.map { Int(PostgresSessionLimits.milliseconds($0)) } }
        set { limits.statementTimeout = newValue.flatMap { $0 > 0 ? .milliseconds($0) : nil } }
    }
}

extension PostgresConfiguration: CustomStringConvertible {
    /// Host, port, user and database; never the password.
    public var description: String {
        "PostgresConfiguration(host: \(host), port: \(port), user: \(user ?? "-"), database: \(database ?? "-"))"
    }
}
