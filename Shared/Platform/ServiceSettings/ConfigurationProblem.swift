/// One thing wrong with one environment variable.
public struct ConfigurationProblem: Sendable, Hashable, CustomStringConvertible {
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
