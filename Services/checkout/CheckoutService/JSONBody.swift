import Foundation
import HTTPServer

/// Decodes app request bodies with the same limits and messages everywhere.
enum JSONBody {
    /// - Throws: ``HTTPError`` 413 when larger than `limit`, 400 when not the
    ///   expected JSON object (the message names the first missing or wrong field).
    static func decode<T: Decodable>(_ type: T.Type, from request: HTTPRequest, limit: Int) throws(HTTPError) -> T {
        try checkSize(request, limit: limit)
        guard !request.body.isEmpty else { throw HTTPError(.badRequest, "Request body must be a JSON object") }
        do {
            return try JSONDecoder().decode(type, from: Data(request.body))
        } catch let DecodingError.keyNotFound(key, _) {
            throw HTTPError(.badRequest, "Missing field '\(key.stringValue)'")
        } catch let DecodingError.typeMismatch(_, context) {
            throw HTTPError(.badRequest, "Field '\(fieldName(context))' has the wrong type")
        } catch let DecodingError.valueNotFound(_, context) {
            throw HTTPError(.badRequest, "Field '\(fieldName(context))' must not be null")
        } catch {
            throw HTTPError(.badRequest, "Request body is not valid JSON")
        }
    }

    /// - Throws: ``HTTPError`` 413 when the body is larger than `limit`.
    static func checkSize(_ request: HTTPRequest, limit: Int) throws(HTTPError) {
        guard request.body.count <= limit else {
            throw HTTPError(.contentTooLarge, "Request body is larger than \(limit) bytes")
        }
    }

    static func fieldName(_ context: DecodingError.Context) -> String {
        let path = context.codingPath.map(\.stringValue).joined(separator: ".")
        return path.isEmpty ? "body" : String(path.prefix(64))
    }
}
