/// Values captured by `{name}` segments of the matched route template, percent-decoded.
public struct RouteParameters: Sendable {
    public private(set) var pairs: [(name: String, value: String)] = []

    public init() {}

    init(names: [String], values: [String]) {
        pairs = Array(zip(names, values).map { ($0, $1) })
    }

    public subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// The value of `name`.
    /// - Throws: ``HTTPError`` 500 when the route has no such parameter (a programming error).
    public func require(_ name: String) throws(HTTPError) -> String {
        guard let value = self[name] else { throw HTTPError(.internalServerError, "Internal server error") }
        return value
    }

    /// The value of `name` converted with `LosslessStringConvertible` (e.g. `Int`, `UUID` via extension).
    /// - Throws: ``HTTPError`` 400 when it does not convert.
    public func require<T: LosslessStringConvertible>(_ name: String, as type: T.Type) throws(HTTPError) -> T {
        let text = try require(name)
        guard let value = T(text) else { throw HTTPError(.badRequest, "Invalid value for path parameter '\(name)'") }
        return value
    }
}
