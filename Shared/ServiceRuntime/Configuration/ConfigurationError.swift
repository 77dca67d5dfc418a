/// One thing wrong with one environment variable.
public struct ConfigurationProblem: Sendable, Equatable, CustomStringConvertible {
    /// The variable at fault (for `_FILE` problems, the `_FILE` variable).
    public let variable: String
    /// What was wrong, e.g. `expected an integer, got "abc"`.
    public let message: String

    public init(variable: String, message: String) {
        self.variable = variable
        self.message = message
    }

    /// `VARIABLE: message`.
    public var description: String { "\(variable): \(message)" }
}

/// Every problem found while reading a service's configuration, reported
/// together so one start-up attempt shows all of them.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// The problems, in the order the variables were read.
    public let problems: [ConfigurationProblem]

    public init(problems: [ConfigurationProblem]) {
        self.problems = problems
    }

    /// The variable names at fault, in order, without repeats.
    public var variables: [String] {
        var seen = Set<String>()
        return problems.map(\.variable).filter { seen.insert($0).inserted }
    }

    public var description: String {
        let count = problems.count == 1 ? "1 problem" : "\(problems.count) problems"
        return "invalid configuration (\(count)): " + problems.map(\.description).joined(separator: "; ")
    }
}
