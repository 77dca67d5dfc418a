/// The operator CLI's arguments: positional words and `--name value` options.
/// Kept deliberately small; every command documents its own options.
public struct CommandLineArguments: Sendable {
    public var words: [String] = []
    public var options: [String: String] = [:]

    public struct UsageError: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) { self.description = description }
    }

    public init(_ arguments: [String]) throws(UsageError) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument.hasPrefix("--") {
                let name = String(argument.dropFirst(2))
                if let equals = name.firstIndex(of: "=") {
                    options[String(name[..<equals])] = String(name[name.index(after: equals)...])
                } else if index + 1 < arguments.count, !arguments[index + 1].hasPrefix("--") {
                    options[name] = arguments[index + 1]
                    index += 1
                } else {
                    options[name] = "true"
                }
            } else {
                words.append(argument)
            }
            index += 1
        }
    }

    public func require(_ name: String) throws(UsageError) -> String {
        guard let value = options[name], !value.isEmpty else { throw UsageError(description: "missing --\(name)") }
        return value
    }
}
