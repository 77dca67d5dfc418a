import ServiceSettings
import Foundation
import Webhooks

/// `--name value` pairs after the subcommand; every value is looked up by name.
struct Options: Sendable {
    struct Invalid: Error, CustomStringConvertible { let description: String }

    private var values: [String: String] = [:]
    private var flags: Set<String> = []

    /// Parses `arguments`; names listed in `flagNames` take no value.
    init(_ arguments: [String], flagNames: Set<String> = []) throws {
        var rest = arguments[...]
        while let name = rest.popFirst() {
            guard name.hasPrefix("--") else { throw Invalid(description: "unexpected argument \(name)") }
            let key = String(name.dropFirst(2))
            if flagNames.contains(key) { flags.insert(key); continue }
            guard let value = rest.popFirst() else { throw Invalid(description: "\(name) needs a value") }
            values[key] = value
        }
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The ownership proof key from the environment (`OWNERSHIP_PROOF_KEY`, which
    /// scripts/bench.sh has from the stack's `stack.env`): the deliveries' custom
    /// data is signed with it, as the checkout signs it.
    static func ownershipProof() throws -> OwnershipProof {
        let key = ProcessInfo.processInfo.environment["OWNERSHIP_PROOF_KEY"] ?? ""
        do {
            return try OwnershipProof(key: Secret(key))
        } catch {
            throw Invalid(
                description: "OWNERSHIP_PROOF_KEY \(key.isEmpty ? "is not set" : "is unusable: \(error)") (scripts/bench.sh takes the stack's)")
        }
    }

    func string(_ name: String) throws -> String {
        guard let value = values[name], !value.isEmpty else { throw Invalid(description: "--\(name) is required") }
        return value
    }

    func string(_ name: String, default fallback: String) -> String { values[name] ?? fallback }

    func optionalString(_ name: String) -> String? { values[name].flatMap { $0.isEmpty ? nil : $0 } }

    func int(_ name: String, default fallback: Int? = nil, in range: ClosedRange<Int> = 0...Int.max) throws -> Int {
        guard let text = values[name] else {
            if let fallback { return fallback }
            throw Invalid(description: "--\(name) is required")
        }
        guard let value = Int(text), range.contains(value) else {
            throw Invalid(description: "--\(name) must be a whole number in \(range.lowerBound)...\(range.upperBound), got \(text)")
        }
        return value
    }

    func double(_ name: String, default fallback: Double? = nil) throws -> Double {
        guard let text = values[name] else {
            if let fallback { return fallback }
            throw Invalid(description: "--\(name) is required")
        }
        guard let value = Double(text), value >= 0 else { throw Invalid(description: "--\(name) must be a non-negative number, got \(text)") }
        return value
    }
}

/// Writes one line to stderr (progress and errors; results go to stdout).
func note(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// Writes the machine-readable result line `RESULT key=value ...` that scripts/bench.sh parses.
func result(_ pairs: KeyValuePairs<String, String>) {
    let line = "RESULT " + pairs.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    print(line)
}

/// Formats a number with a fixed count of decimals.
func fixed(_ value: Double, _ decimals: Int = 1) -> String { String(format: "%.\(decimals)f", value) }

/// Wall-clock seconds since 1970.
func wallSeconds() -> Double { Date().timeIntervalSince1970 }
