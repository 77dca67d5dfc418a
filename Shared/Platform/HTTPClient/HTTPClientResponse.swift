import Foundation

/// A complete HTTP response.
public struct HTTPClientResponse: Sendable {
    /// The status code, e.g. 200.
    public var status: Int
    /// The response header fields (of the final response, after any `100 Continue`).
    public var headers: HTTPHeaders
    /// The response body bytes.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The body decoded as UTF-8 (invalid sequences replaced).
    public var bodyString: String { String(decoding: body, as: UTF8.self) }

    /// Decodes the body as JSON.
    /// - Throws: the decoder's `DecodingError`.
    public func decode<T: Decodable>(_ type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decoder.decode(type, from: Data(body))
    }

    /// Returns `self` when the status is 2xx.
    /// - Throws: ``HTTPClientError/status(code:body:)`` with the status and body otherwise.
    @discardableResult
    public func ensureSuccess() throws(HTTPClientError) -> HTTPClientResponse {
        guard isSuccess else { throw .status(code: status, body: bodyString) }
        return self
    }
}
