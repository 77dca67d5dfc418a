import Foundation

/// A complete response: status, header fields and body bytes.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// Fields the server adds to this request's access line (`request`, at
    /// info), never sent. A handler that would otherwise log its outcome in a
    /// line of its own puts it here: one line per request, not two (each
    /// line is a write to stderr, a measurable share of a webhook's cost).
    public var accessLogMetadata: [String: String] = [:]

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response whose body is `value` encoded as JSON, with `Content-Type: application/json`.
    /// - Throws: the encoder's error when `value` cannot be encoded.
    public static func json<T: Encodable>(_ value: T, status: HTTPStatus = .ok) throws -> HTTPResponse {
        let data = try SharedJSONEncoder.encoder.encode(value)
        return HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Array(data))
    }
}

/// One encoder for every response: swift-foundation's `JSONEncoder` is
/// `Sendable` (its options are lock-protected and each `encode` call uses its
/// own state), so sharing it avoids building one per request.
enum SharedJSONEncoder {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()
}
