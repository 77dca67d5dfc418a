/// An ordered list of header fields with case-insensitive lookup by name,
/// shared by the HTTP server and client so both speak the same types.
///
/// Names keep the spelling they were added with; lookups compare ASCII
/// case-insensitively, so `headers["content-type"]` finds `Content-Type`.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [(name: String, value: String)] = []

    public init() {}

    /// Creates headers from name/value pairs, keeping their order.
    public init(_ fields: [(String, String)]) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { add(name: name, value: value) }
    }

    /// Appends a field, keeping any earlier field with the same name.
    public mutating func add(name: String, value: String) {
        fields.append((name, value))
    }

    /// Replaces every field named `name` with one field.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        fields.append((name, value))
    }

    public mutating func remove(name: String) {
        fields.removeAll { Self.equalsIgnoringCase($0.name, name) }
    }

    /// The first value of the field named `name`, or `nil`.
    public subscript(name: String) -> String? {
        fields.first { Self.equalsIgnoringCase($0.name, name) }?.value
    }

    /// Every value of the fields named `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.equalsIgnoringCase($0.name, name) }.map(\.value)
    }

    /// Whether a field named `name` is present.
    public func contains(_ name: String) -> Bool { self[name] != nil }

    public var count: Int { fields.count }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    /// ASCII case-insensitive comparison without allocating lowercased copies.
    static func equalsIgnoringCase(_ lhs: String, _ rhs: String) -> Bool {
        var left = lhs.utf8.makeIterator()
        var right = rhs.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return true
            case (let l?, let r?):
                if l != r && lowered(l) != lowered(r) { return false }
            default: return false
            }
        }
    }

    private static func lowered(_ byte: UInt8) -> UInt8 {
        (byte >= 65 && byte <= 90) ? byte + 32 : byte
    }
}
