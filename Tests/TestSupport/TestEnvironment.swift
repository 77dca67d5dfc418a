import Foundation

/// The one way tests read their environment: the shared servers `make test`
/// starts (`DATABASE_URL` from `scripts/pg.sh`, `KAFKA_BROKERS` from
/// `scripts/tansu.sh`), the checkout's `scripts/` folder (`STOREFRONT_SCRIPTS`)
/// and the env files those scripts write (`pg.env`, `kafka.env`, `stack.env`).
/// A missing variable fails the test with what to do, it never skips it.
/// Unit targets never call these: they run with all three unset.
public enum TestEnvironment {
    public struct Missing: Error, CustomStringConvertible {
        public let name: String
        public let hint: String
        public var description: String { "\(name) is not set: \(hint) (make test does this)" }
    }

    /// A variable's value, nil when unset or empty.
    public static func value(_ name: String) -> String? {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
        return value
    }

    /// A variable's value; throws ``Missing`` with `hint` when unset or empty.
    public static func require(_ name: String, hint: String) throws -> String {
        guard let value = value(name) else { throw Missing(name: name, hint: hint) }
        return value
    }

    /// The `OWNERSHIP_PROOF_KEY` of everything tests build in process (a
    /// projector, a checkout): a fixed key for tests only, never a
    /// deployment's (`scripts/stack.sh` and `deploy/make-secrets.sh` generate
    /// theirs). The fixtures' proofs (`Tests/Fixtures/SOURCES.md`) are made
    /// with it; ``TestOwnership`` makes more.
    public static let ownershipProofKey = "storefront-tests-only-ownership-proof-key-0001"

    /// The shared PostgreSQL server's URL (its superuser, database `postgres`).
    public static func databaseURL() throws -> String {
        try require("DATABASE_URL", hint: "start PostgreSQL with scripts/pg.sh start DIR; . DIR/pg.env")
    }

    /// The shared broker's bootstrap servers, split at commas.
    public static func kafkaBrokers() throws -> [String] {
        try require("KAFKA_BROKERS", hint: "start a broker with scripts/tansu.sh start DIR; . DIR/kafka.env")
            .split(separator: ",").map(String.init)
    }

    /// The checkout's `scripts/` folder, for suites that start servers of their own.
    public static func scriptsFolder() throws -> String {
        try require("STOREFRONT_SCRIPTS", hint: "set it to the checkout's scripts/ folder")
    }

    /// The `export NAME=value` lines of an env file the scripts wrote
    /// (`pg.env`, `kafka.env`, `stack.env`), quotes around values removed.
    public static func readEnvFile(_ path: String) throws -> [String: String] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var settings: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("export ") {
            let pair = line.dropFirst("export ".count)
            guard let equals = pair.firstIndex(of: "=") else { continue }
            settings[String(pair[..<equals])] = String(pair[pair.index(after: equals)...]).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return settings
    }

    /// One setting of an env file; throws ``Missing`` naming the file when it lacks it.
    public static func setting(_ name: String, inEnvFile path: String) throws -> String {
        guard let value = try readEnvFile(path)[name], !value.isEmpty else {
            throw Missing(name: "\(name) in \(path)", hint: "the script that writes it did not")
        }
        return value
    }
}
