/// Reads Stripe's `application/x-www-form-urlencoded` request bodies with
/// bracketed nested keys (`line_items[0][price]`, `metadata[k]`) into a
/// ``JSONValue`` tree: objects for named keys, arrays for index-only levels.
enum StripeFormBody {
    static let maximumBytes = 64 * 1024
    static let maximumPairs = 256
    static let maximumDepth = 5

    /// The tree, or nil for a body over the limits or a key that is not `name[part]…`.
    static func parse(_ body: [UInt8]) -> JSONValue? {
        guard body.count <= maximumBytes else { return nil }
        let pairs = FormDecoding.decode(String(decoding: body, as: UTF8.self))
        guard pairs.count <= maximumPairs else { return nil }
        var root = Node()
        for pair in pairs {
            guard let path = keyPath(pair.name), path.count <= maximumDepth else { return nil }
            root.insert(path[...], value: pair.value)
        }
        return root.json
    }

    /// `a[b][0]` → `["a", "b", "0"]`.
    static func keyPath(_ key: String) -> [String]? {
        guard let open = key.firstIndex(of: "[") else { return key.isEmpty ? nil : [key] }
        var path = [String(key[..<open])]
        var rest = key[open...]
        while !rest.isEmpty {
            guard rest.first == "[", let close = rest.firstIndex(of: "]") else { return nil }
            path.append(String(rest[rest.index(after: rest.startIndex)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return path.first?.isEmpty == false ? path : nil
    }

    private struct Node {
        var value: String?
        var children: [(String, Node)] = []

        mutating func insert(_ path: ArraySlice<String>, value: String) {
            guard let head = path.first else {
                self.value = value
                return
            }
            if let index = children.firstIndex(where: { $0.0 == head }) {
                children[index].1.insert(path.dropFirst(), value: value)
            } else {
                var child = Node()
                child.insert(path.dropFirst(), value: value)
                children.append((head, child))
            }
        }

        var json: JSONValue {
            if children.isEmpty { return value.map(JSONValue.string) ?? .null }
            let indices = children.compactMap { Int($0.0) }
            if indices.count == children.count {
                return .array(children.sorted { Int($0.0) ?? 0 < Int($1.0) ?? 0 }.map(\.1.json))
            }
            return .object(children.map { JSONField(key: $0.0, value: $0.1.json) })
        }
    }
}
