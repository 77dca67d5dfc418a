extension PostgresConfiguration {
    /// Parses a `postgresql://` (or `postgres://`) URL.
    ///
    /// Form: `postgresql://[user[:password]@][host][:port][/database][?keyword=value&...]`.
    /// User, password, host, database and query values are percent-decoded.
    /// Query keywords `sslmode`, `sslrootcert`, `sslcert`, `sslkey`,
    /// `connect_timeout`, `application_name` and `statement_timeout` (ms) map to
    /// properties; other keywords are passed to libpq as they are.
    /// - Parameter url: the connection URL.
    /// - Throws: ``PostgresError`` of kind `.invalidConfiguration` when the URL is malformed.
    ///   The error never repeats the URL, which may hold a password.
    public init(url: String) throws {
        func invalid(_ reason: String) -> PostgresError {
            PostgresError(.invalidConfiguration, message: reason)
        }
        guard url.utf8.count <= 8192 else { throw invalid("connection URL is too long") }
        var rest = Substring(url)
        if rest.hasPrefix("postgresql://") {
            rest = rest.dropFirst("postgresql://".count)
        } else if rest.hasPrefix("postgres://") {
            rest = rest.dropFirst("postgres://".count)
        } else {
            throw invalid("connection URL must start with postgresql:// or postgres://")
        }
        self.init(host: "localhost")

        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var path: Substring? = nil
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        // The password may contain '@' only percent-encoded, so the last '@' splits.
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = userInfo.firstIndex(of: ":") {
                user = try Self.decodePercent(userInfo[..<colon], what: "user")
                password = try Self.decodePercent(userInfo[userInfo.index(after: colon)...], what: "password")
            } else {
                user = try Self.decodePercent(userInfo, what: "user")
            }
            if user == "" { user = nil }
        }
        // Host: `[v6]` or name, then an optional `:port`.
        var hostPart = rest
        var portPart: Substring? = nil
        if hostPart.hasPrefix("[") {
            guard let close = hostPart.firstIndex(of: "]") else { throw invalid("unterminated IPv6 address in URL") }
            let after = hostPart[hostPart.index(after: close)...]
            if after.hasPrefix(":") {
                portPart = after.dropFirst()
            } else if !after.isEmpty {
                throw invalid("unexpected text after IPv6 address in URL")
            }
            hostPart = hostPart[hostPart.index(after: hostPart.startIndex)..<close]
        } else if let colon = hostPart.lastIndex(of: ":") {
            portPart = hostPart[hostPart.index(after: colon)...]
            hostPart = hostPart[..<colon]
        }
        if !hostPart.isEmpty { host = try Self.decodePercent(hostPart, what: "host") }
        if let portPart {
            guard let value = Int(portPart), (1...65535).contains(value) else { throw invalid("invalid port in URL") }
            port = value
        }
        if let path, !path.isEmpty { database = try Self.decodePercent(path, what: "database") }

        for item in query.split(separator: "&", omittingEmptySubsequences: true) {
            guard let equals = item.firstIndex(of: "=") else { throw invalid("query parameter without a value in URL") }
            let keyword = try Self.decodePercent(item[..<equals], what: "query keyword")
            let value = try Self.decodePercent(item[item.index(after: equals)...], what: "query value")
            guard !keyword.isEmpty, keyword.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x5F }) else {
                throw invalid("invalid query keyword in URL")
            }
            try apply(keyword: keyword, value: value)
        }
    }

    private mutating func apply(keyword: String, value: String) throws {
        func number(_ text: String) throws -> Int {
            guard let n = Int(text), n >= 0 else {
                throw PostgresError(.invalidConfiguration, message: "\(keyword) must be a non-negative integer")
            }
            return n
        }
        switch keyword {
        case "sslmode": tls.mode = value
        case "sslrootcert": tls.rootCertificatePath = value
        case "sslcert": tls.certificatePath = value
        case "sslkey": tls.keyPath = value
        case "connect_timeout": connectTimeoutSeconds = try number(value)
        case "statement_timeout": statementTimeoutMilliseconds = try number(value)
        case "application_name": applicationName = value
        case "host": host = value
        case "port":
            guard let p = Int(value), (1...65535).contains(p) else {
                throw PostgresError(.invalidConfiguration, message: "invalid port in URL")
            }
            port = p
        case "user": user = value
        case "password": password = value
        case "dbname": database = value
        default: extraParameters.append(Parameter(keyword, value))
        }
    }

    /// Decodes `%XX` escapes; the result must be valid UTF-8 without NUL,
    /// because libpq takes C strings.
    static func decodePercent(_ text: Substring, what: String) throws -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    throw PostgresError(.invalidConfiguration, message: "invalid percent-encoding in URL \(what)")
                }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        guard !bytes.contains(0), let decoded = String(validating: bytes, as: UTF8.self) else {
            throw PostgresError(.invalidConfiguration, message: "URL \(what) is not valid UTF-8 text")
        }
        return decoded
    }
}

/// The value of one ASCII hex digit, or `nil`.
func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}
