/// The members of a JSON object, in document order.
///
/// Why not `[String: JSONValue]`: a webhook body is a tree of small objects
/// (tens of members), each read by a few lookups. Hashing every key into a
/// fresh hash table (and growing it) was most of what the byte-level reader
/// spent building the tree in the receiver's and the projector's profiles;
/// appending to an array and comparing keys on lookup costs less.
///
/// A key that appears twice keeps its last value, for lookups, iteration and
/// equality alike (as `JSONSerialization` and `JSONDecoder` read such text).
/// Lookups scan from the end, so they are linear in the member count; the
/// body limit bounds that count.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    public typealias Element = (key: String, value: JSONValue)

    private var keys: [String] = []
    private var values: [JSONValue] = []

    public init() {}

    public init(_ dictionary: [String: JSONValue]) {
        keys.reserveCapacity(dictionary.count)
        values.reserveCapacity(dictionary.count)
        for (key, value) in dictionary { append(key, value) }
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        for (key, value) in elements { self[key] = value }
    }

    /// Adds a member as the reader meets it (a repeated key shadows the earlier one).
    mutating func append(_ key: String, _ value: JSONValue) {
        keys.append(key)
        values.append(value)
    }

    mutating func reserveCapacity(_ count: Int) {
        keys.reserveCapacity(count)
        values.reserveCapacity(count)
    }

    /// The value of `key` (its last occurrence); setting replaces it, or adds the member.
    public subscript(key: String) -> JSONValue? {
        get { keys.lastIndex(of: key).map { values[$0] } }
        set {
            let index = keys.lastIndex(of: key)
            switch (index, newValue) {
            case (let index?, let value?): values[index] = value
            case (_?, nil):
                // Every occurrence, or an earlier one would show through.
                for index in keys.indices.reversed() where keys[index] == key {
                    keys.remove(at: index)
                    values.remove(at: index)
                }
            case (nil, let value?): append(key, value)
            case (nil, nil): break
            }
        }
    }

    public var isEmpty: Bool { keys.isEmpty }

    /// The members with repeated keys folded to their last value, in the order of their last occurrence.
    private var unique: [Element] {
        var seen = Set<String>()
        var result: [Element] = []
        for index in keys.indices.reversed() where seen.insert(keys[index]).inserted {
            result.append((keys[index], values[index]))
        }
        return result.reversed()
    }

    /// The number of distinct keys.
    public var count: Int { unique.count }

    public func makeIterator() -> IndexingIterator<[Element]> { unique.makeIterator() }

    /// The members as a dictionary.
    public var dictionary: [String: JSONValue] {
        Dictionary(keys.indices.map { (keys[$0], values[$0]) }, uniquingKeysWith: { _, last in last })
    }

    public static func == (a: JSONObject, b: JSONObject) -> Bool { a.dictionary == b.dictionary }

    public func hash(into hasher: inout Hasher) { hasher.combine(dictionary) }
}
