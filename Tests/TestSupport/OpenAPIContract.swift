import Foundation

/// Checks real responses against `deploy/api/openapi.json`: a response whose
/// status the document does not list for its operation, or whose body does
/// not match the listed schema, is a problem. Reads the subset of JSON Schema
/// the document uses: `$ref`, `type` (one or several), `const`, `enum`,
/// `properties`, `required`, `additionalProperties: false`, `items`,
/// `oneOf`, `minLength`, `maxLength` and `format: date-time`.
public struct OpenAPIContract: Sendable {
    let document: [String: JSONTree]

    public init(data: Data) throws {
        guard case .object(let document) = try JSONDecoder().decode(JSONTree.self, from: data) else {
            throw ContractError("the document is not a JSON object")
        }
        self.document = document
    }

    /// Where the repository keeps the document (found from this file's own path).
    public static let repositoryFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy/api/openapi.json")

    /// The repository's document.
    public static func repository() throws -> OpenAPIContract {
        try OpenAPIContract(data: Data(contentsOf: repositoryFile))
    }

    public struct ContractError: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// What is wrong with this answer to `method` on the path template
    /// `path` (e.g. `/api/webhooks/{provider}`); empty when it matches.
    public func problems(method: String, path: String, status: Int, contentType: String?, body: [UInt8]) -> [String] {
        let at = "\(method.uppercased()) \(path) \(status)"
        guard case .object(let operation)? = document["paths"]?[path]?[method.lowercased()] else {
            return ["\(at): the document has no such operation"]
        }
        guard case .object(let response)? = operation["responses"]?[String(status)] else {
            return ["\(at): status \(status) is not documented for this operation"]
        }
        guard let content = response["content"] else {
            return body.isEmpty ? [] : ["\(at): the document describes no body, got \(body.count) bytes"]
        }
        let type = contentType.map { String($0.split(separator: ";")[0]).trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard let media = content[type] else { return ["\(at): content type \(type) is not documented"] }
        guard type == "application/json" else { return [] }
        guard let value = try? JSONDecoder().decode(JSONTree.self, from: Data(body)) else { return ["\(at): the body is not JSON"] }
        return check(value, against: media["schema"] ?? .object([:]), at: at)
    }

    private func resolve(_ schema: JSONTree) -> [String: JSONTree] {
        guard case .object(let object) = schema else { return [:] }
        guard case .string(let reference)? = object["$ref"], reference.hasPrefix("#/components/schemas/") else { return object }
        let name = String(reference.dropFirst("#/components/schemas/".count))
        return resolve(document["components"]?["schemas"]?[name] ?? .object([:]))
    }

    private func check(_ value: JSONTree, against raw: JSONTree, at path: String) -> [String] {
        let schema = resolve(raw)
        if case .array(let options)? = schema["oneOf"] {
            let matching = options.filter { check(value, against: $0, at: path).isEmpty }.count
            return matching == 1 ? [] : ["\(path): matches \(matching) of the oneOf schemas"]
        }
        if let constant = schema["const"], value != constant { return ["\(path): expected \(constant)"] }
        if case .array(let choices)? = schema["enum"], !choices.contains(value) { return ["\(path): \(value) is not one of \(choices)"] }
        if let type = schema["type"] {
            let types: [String] =
                switch type {
                case .string(let one): [one]
                case .array(let many): many.compactMap { if case .string(let name) = $0 { name } else { nil } }
                default: []
                }
            guard types.contains(where: value.has(type:)) else { return ["\(path): expected \(types.joined(separator: "|")), got \(value)"] }
        }
        var problems: [String] = []
        switch value {
        case .string(let text):
            if case .number(let minimum)? = schema["minLength"], Double(text.count) < minimum { problems.append("\(path): shorter than \(minimum)") }
            if case .number(let maximum)? = schema["maxLength"], Double(text.count) > maximum { problems.append("\(path): longer than \(maximum)") }
            if schema["format"] == .string("date-time"), Self.isoDate.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) == nil {
                problems.append("\(path): \(text) is not an RFC 3339 date-time")
            }
        case .object(let object):
            if case .array(let required)? = schema["required"] {
                for case .string(let key) in required where object[key] == nil { problems.append("\(path): lacks \(key)") }
            }
            let properties: [String: JSONTree] = if case .object(let members)? = schema["properties"] { members } else { [:] }
            for (key, member) in object {
                if let property = properties[key] {
                    problems += check(member, against: property, at: "\(path).\(key)")
                } else if schema["additionalProperties"] == .bool(false) {
                    problems.append("\(path): \(key) is not in the document")
                }
            }
        case .array(let array):
            if let items = schema["items"] {
                for (index, item) in array.enumerated() { problems += check(item, against: items, at: "\(path)[\(index)]") }
            }
        default:
            break
        }
        return problems
    }

    private static let isoDate = try! NSRegularExpression(pattern: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$"#)

}

/// JSON as the contract check reads it (booleans never taken for numbers).
enum JSONTree: Decodable, Equatable, Sendable, CustomStringConvertible {
    case null, bool(Bool), number(Double), string(String), array([JSONTree]), object([String: JSONTree])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONTree].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONTree].self))
        }
    }

    subscript(key: String) -> JSONTree? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    func has(type: String) -> Bool {
        switch (type, self) {
        case ("null", .null), ("boolean", .bool), ("number", .number), ("string", .string), ("array", .array), ("object", .object): true
        case ("integer", .number(let value)): value.rounded() == value
        default: false
        }
    }

    var description: String {
        switch self {
        case .null: "null"
        case .bool(let value): String(value)
        case .number(let value): String(value)
        case .string(let value): "\"\(value.prefix(60))\""
        case .array(let items): "array of \(items.count)"
        case .object(let members): "object with \(members.keys.sorted().prefix(6).joined(separator: ","))"
        }
    }
}
