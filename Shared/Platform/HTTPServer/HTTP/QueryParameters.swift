/// The decoded `key=value` pairs of a query string, in order; keys may repeat.
public struct QueryParameters: Sendable, Sequence {
    public private(set) var pairs: [(name: String, value: String)] = []

    public init() {}

    /// Parses `a=1&b=x%20y&a=2` (without the leading `?`).
    ///
    /// `+` means space, `%XX` escapes are decoded, a key without `=` has an
    /// empty value, and empty segments (`a=1&&b=2`) are ignored.
    /// - Throws: ``HTTPError`` 400 when an escape is malformed or not UTF-8.
    public init(parsing query: Substring) throws(HTTPError) {
        guard !query.isEmpty else { return }
        for segment in query.split(separator: "&", omittingEmptySubsequences: true) {
            let name: Substring
            let value: Substring
            if let equals = segment.firstIndex(of: "=") {
                name = segment[..<equals]
                value = segment[segment.index(after: equals)...]
            } else {
                name = segment
                value = ""
            }
            guard let decodedName = PercentDecoding.decode(name, plusAsSpace: true),
                let decodedValue = PercentDecoding.decode(value, plusAsSpace: true)
            else { throw HTTPError(.badRequest, "Malformed query string") }
            pairs.append((decodedName, decodedValue))
        }
    }

    /// The first value for `name`, or `nil`.
    public subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// Every value for `name`, in order (`?tag=a&tag=b` gives `["a", "b"]`).
    public func values(for name: String) -> [String] {
        pairs.filter { $0.name == name }.map(\.value)
    }

    /// The first value for `name` converted with `LosslessStringConvertible`.
    /// - Throws: ``HTTPError`` 400 when the value is present but does not convert.
    public func get<T: LosslessStringConvertible>(_ name: String, as type: T.Type) throws(HTTPError) -> T? {
        guard let text = self[name] else { return nil }
        guard let value = T(text) else { throw HTTPError(.badRequest, "Invalid value for query parameter '\(name)'") }
        return value
    }

    public var isEmpty: Bool { pairs.isEmpty }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { pairs.makeIterator() }
}
