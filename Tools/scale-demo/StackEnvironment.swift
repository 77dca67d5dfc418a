import Foundation

/// The settings `scripts/stack.sh up` wrote to `STATE_DIR/stack.env`
/// (`export NAME=value` lines).
struct StackEnvironment: Sendable {
    let values: [String: String]

    struct Missing: Error, CustomStringConvertible { let description: String }

    /// Reads `stack.env` from `stateDirectory`.
    /// - Throws: ``Missing`` when the file or a needed entry is absent.
    static func load(stateDirectory: String) throws -> StackEnvironment {
        let path = stateDirectory + "/stack.env"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw Missing(description: "\(path) not found: start the stack first (scripts/stack.sh up \(stateDirectory))")
        }
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("export ") {
            let pair = line.dropFirst("export ".count)
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let value = pair[pair.index(after: equals)...].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            values[String(pair[..<equals])] = value
        }
        let environment = StackEnvironment(values: values)
        for name in ["GATEWAY_URL", "DATABASE_URL", "KAFKA_BROKERS"] where environment[name] == nil {
            throw Missing(description: "\(path) has no \(name)")
        }
        return environment
    }

    subscript(name: String) -> String? {
        values[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The projectors' base URLs (health and metrics).
    var projectorURLs: [String] {
        (self["PROJECTOR_URLS"] ?? "").split(separator: " ").map(String.init)
    }

    /// The reconcilers' base URLs (health and metrics); empty when the stack runs none.
    var reconcilerURLs: [String] {
        (self["RECONCILER_URLS"] ?? "").split(separator: " ").map(String.init)
    }
}
