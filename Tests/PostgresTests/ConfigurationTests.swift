import Testing
@testable import Postgres

@Suite struct ConfigurationTests {
    @Test func parsesFullURLWithPercentEncoding() throws {
        let config = try PostgresConfiguration(
            url: "postgresql://app%40corp:p%40ss%3Aw%2Frd%20x@db.example.com:6543/my%20db"
                + "?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem&sslcert=/c.pem&sslkey=/k.pem"
                + "&connect_timeout=3&application_name=store%20front&statement_timeout=250&keepalives=1")
        #expect(config.host == "db.example.com")
        #expect(config.port == 6543)
        #expect(config.user == "app@corp")
        #expect(config.password == "p@ss:w/rd x")
        #expect(config.database == "my db")
        #expect(
            config.tls
                == .init(
                    mode: "verify-full", rootCertificatePath: "/etc/ca.pem",
                    certificatePath: "/c.pem", keyPath: "/k.pem"))
        #expect(config.connectTimeoutSeconds == 3)
        #expect(config.applicationName == "store front")
        #expect(config.statementTimeoutMilliseconds == 250)
        #expect(config.extraParameters == [.init("keepalives", "1")])

        let pairs = Dictionary(config.keywordPairs(), uniquingKeysWith: { $1 })
        #expect(pairs["password"] == "p@ss:w/rd x")
        #expect(pairs["sslmode"] == "verify-full")
        #expect(pairs["keepalives"] == "1")
        #expect(pairs["options"]?.contains("-c statement_timeout=250") == true)
        #expect(pairs["options"]?.contains("-c TimeZone=UTC") == true)
        #expect(!config.description.contains("p@ss"))
    }

    @Test func parsesMinimalAndIPv6URLs() throws {
        let minimal = try PostgresConfiguration(url: "postgres://")
        #expect(minimal.host == "localhost" && minimal.port == 5432 && minimal.user == nil && minimal.database == nil)
        let v6 = try PostgresConfiguration(url: "postgresql://u@[::1]:5433/d")
        #expect(v6.host == "::1" && v6.port == 5433 && v6.user == "u" && v6.database == "d")
    }

    @Test(arguments: [
        "mysql://x", "postgresql://h:99999/d", "postgresql://h/d?x", "postgresql://u:%zz@h/d",
        "postgresql://u:%00@h/d", "postgresql://h/d?Bad-Key=1",
    ])
    func rejectsMalformedURLs(url: String) {
        #expect(throws: PostgresError.self) { try PostgresConfiguration(url: url) }
    }

    @Test func invalidURLErrorDoesNotRepeatSecrets() {
        do {
            _ = try PostgresConfiguration(url: "postgresql://u:topsecret@h:notaport/d")
            Issue.record("expected an error")
        } catch let error as PostgresError {
            #expect(error.kind == .invalidConfiguration)
            #expect(!error.description.contains("topsecret"))
            #expect(!error.debugDescription.contains("topsecret"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func optionsEscapeSpacesAndBackslashes() {
        #expect(PostgresConfiguration.escapeOption(#"a b\c"#) == #"a\ b\\c"#)
    }
}
