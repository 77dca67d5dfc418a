import Foundation

/// The environment variables a service reads its configuration from.
///
/// A value type so tests can build one from a dictionary instead of mutating
/// the real process environment, which other suites share.
public struct Environment: Sendable {
    /// Every variable, by name.
    public var values: [String: String]

    /// - Parameter values: the variables; the process environment by default.
    public init(_ values: [String: String] = ProcessInfo.processInfo.environment) {
        self.values = values
    }

    /// The value of `name`, or `nil` when it is unset or empty.
    ///
    /// Empty counts as unset because container tooling often renders an
    /// unset variable as `NAME=` and services should then use their default.
    public subscript(name: String) -> String? {
        guard let value = values[name], !value.isEmpty else { return nil }
        return value
    }
}
