import Basics

/// Every problem found in the providers' settings, reported together so an
/// operator can fix them in one go. Problems name variables, never the values
/// of secrets.
public struct ProvidersConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One per problem, each naming the environment variable to fix.
    public let problems: [ConfigurationProblem]

    public init(problems: [ConfigurationProblem]) {
        self.problems = problems
    }

    public var description: String {
        "invalid payment provider configuration:\n" + problems.map { "- \($0)" }.joined(separator: "\n")
    }
}
