/// HTTP header fields in arrival order, looked up case-insensitively.
public struct SandboxHeaders: Sendable, Equatable {
    public private(set) var fields: [(name: String, value: String)]

    public init(_ fields: [(String, String)] = []) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    /// The first value of `name` (any case), or nil.
    public subscript(name: String) -> String? {
        let lowered = name.lowercased()
        return fields.first { $0.name.lowercased() == lowered }?.value
    }

    public mutating func add(_ name: String, _ value: String) { fields.append((name: name, value: value)) }

    /// Replaces every value of `name` with `value`.
    public mutating func set(_ name: String, _ value: String) {
        let lowered = name.lowercased()
        fields.removeAll { $0.name.lowercased() == lowered }
        fields.append((name: name, value: value))
    }

    public static func == (lhs: SandboxHeaders, rhs: SandboxHeaders) -> Bool {
        lhs.fields.map { "\($0.name.lowercased()):\($0.value)" } == rhs.fields.map { "\($0.name.lowercased()):\($0.value)" }
    }
}
