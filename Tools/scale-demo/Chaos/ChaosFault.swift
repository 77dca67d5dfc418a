import Foundation

/// One fault of a chaos run, and when it begins.
struct ChaosFault: Sendable, Equatable {
    enum Kind: String, Sendable, CaseIterable {
        /// SIGSTOP the Tansu broker, SIGCONT it after `--freeze-seconds`.
        case freeze
        /// SIGKILL one projector, then start a replacement (`stack.sh add-projector`).
        case kill
        /// Stop and start the same PostgreSQL cluster on the same port (`stack.sh restart-postgres`).
        case postgres
        /// SIGTERM one webhook receiver and start it again on its port (`stack.sh restart-receiver`).
        case receiver
    }

    let kind: Kind
    /// The share of the plan's webhooks started before this fault begins (0 < at < 1).
    let at: Double

    /// Two 30 s freezes around a projector kill, a PostgreSQL restart and a receiver restart.
    static let defaults = [
        ChaosFault(kind: .freeze, at: 0.10), ChaosFault(kind: .kill, at: 0.30), ChaosFault(kind: .postgres, at: 0.45),
        ChaosFault(kind: .receiver, at: 0.60), ChaosFault(kind: .freeze, at: 0.75),
    ]

    struct Invalid: Error, CustomStringConvertible { let description: String }

    /// Parses `kind@fraction,kind@fraction,...`; fractions must rise.
    /// - Throws: ``Invalid`` naming the bad entry.
    static func parse(_ text: String) throws(Invalid) -> [ChaosFault] {
        var faults: [ChaosFault] = []
        for entry in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !entry.isEmpty {
            let parts = entry.split(separator: "@", omittingEmptySubsequences: false)
            let kinds = Kind.allCases.map(\.rawValue).joined(separator: ", ")
            guard parts.count == 2, let kind = Kind(rawValue: String(parts[0])) else {
                throw Invalid(description: "\(entry): expected KIND@FRACTION with KIND one of \(kinds)")
            }
            guard let at = Double(parts[1]), at > 0, at < 1 else {
                throw Invalid(description: "\(entry): the fraction must be a number between 0 and 1 (exclusive)")
            }
            if let last = faults.last, at <= last.at {
                throw Invalid(description: "\(entry): fractions must rise (the previous fault is at \(last.at))")
            }
            faults.append(ChaosFault(kind: kind, at: at))
        }
        guard !faults.isEmpty else { throw Invalid(description: "no faults in \"\(text)\"") }
        return faults
    }

    static func describe(_ faults: [ChaosFault]) -> String {
        faults.map { "\($0.kind.rawValue)@\(String(format: "%g", $0.at))" }.joined(separator: ",")
    }

    /// The index of the webhook before which this fault begins.
    func threshold(total: Int) -> Int { min(total - 1, max(1, Int((Double(total) * at).rounded()))) }
}
