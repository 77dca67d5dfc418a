/// One record header: a name and an optional byte value. Kafka allows the
/// same name more than once, so headers are kept as an ordered list.
public struct KafkaHeader: Sendable, Hashable {
    /// The header name.
    public var name: String
    /// The header value; `nil` is a header without a value.
    public var value: [UInt8]?

    /// Creates a header from bytes.
    public init(_ name: String, _ value: [UInt8]?) {
        self.name = name
        self.value = value
    }

    /// Creates a header whose value is the UTF-8 bytes of `value`.
    public init(_ name: String, _ value: String) {
        self.init(name, Array(value.utf8))
    }
}
