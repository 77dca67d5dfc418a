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
