import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Everything a ``StorefrontClient`` call can fail with. Each case carries a
/// human-readable message: the server's own (`{"success":false,"error":"…"}`)
/// when it answered, else a description of what went wrong.
///
/// ```swift
/// do { try await storefront.createCheckout(for: product) }
/// catch .unauthorized { signIn() }
/// catch .providerUnavailable(let message, let retryAfter) { showRetry(message, after: retryAfter) }
/// catch { show(error.message) }
/// ```
public enum StorefrontError: Error, Hashable, Sendable, LocalizedError, CustomStringConvertible {
    /// No answer from the server: offline, DNS, TLS, timeout, connection lost.
    case network(message: String)
    /// 401: the token is missing, expired or not accepted (or the token
    /// provider failed). Sign the user in again.
    case unauthorized(message: String)
    /// 403: the token is fine but may not do this (e.g. an email that is not the user's).
    case forbidden(message: String)
    /// 404: no such product, variant or subscription (also someone else's).
    case notFound(message: String)
    /// 502, 503 or 504: the payment provider (or Storefront behind it) cannot
    /// serve the request now. Try again after `retryAfter` when the server said.
    case providerUnavailable(message: String, retryAfter: Duration?)
    /// Any other error status (400, 409, 422, 500, …).
    case server(status: Int, message: String)
    /// The server answered something StorefrontKit cannot read.
    case invalidResponse(message: String)
    /// The calling task was cancelled.
    case cancelled

    /// The human-readable message.
    public var message: String {
        switch self {
        case .network(let message), .unauthorized(let message), .forbidden(let message), .notFound(let message),
            .providerUnavailable(let message, _), .server(_, let message), .invalidResponse(let message):
            message
        case .cancelled:
            "The request was cancelled."
        }
    }

    /// The HTTP status the server answered with, when it answered.
    public var statusCode: Int? {
        switch self {
        case .unauthorized: 401
        case .forbidden: 403
        case .notFound: 404
        case .server(let status, _): status
        case .providerUnavailable, .network, .invalidResponse, .cancelled: nil
        }
    }

    /// Whether trying the same call again later may succeed.
    public var isRetryable: Bool {
        switch self {
        case .network, .providerUnavailable: true
        case .server(let status, _): status == 409 || status == 429 || status >= 500
        default: false
        }
    }

    /// ``message`` (for `localizedDescription`).
    public var errorDescription: String? { message }

    /// The case and its message.
    public var description: String {
        switch self {
        case .network: "network error: \(message)"
        case .unauthorized: "unauthorized: \(message)"
        case .forbidden: "forbidden: \(message)"
        case .notFound: "not found: \(message)"
        case .providerUnavailable(_, let retryAfter): "provider unavailable: \(message)" + (retryAfter.map { " (retry after \($0))" } ?? "")
        case .server(let status, _): "server error \(status): \(message)"
        case .invalidResponse: "invalid response: \(message)"
        case .cancelled: "cancelled"
        }
    }

    /// The error for a non-2xx answer.
    static func from(status: Int, body: Data, retryAfter: String?) -> StorefrontError {
        let message = serverMessage(body) ?? HTTPURLResponse.localizedString(forStatusCode: status).capitalizedFirst
        switch status {
        case 401: return .unauthorized(message: message)
        case 403: return .forbidden(message: message)
        case 404: return .notFound(message: message)
        case 502, 503, 504:
            return .providerUnavailable(
                message: message, retryAfter: retryAfter.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map { .seconds(max(0, $0)) })
        default: return .server(status: status, message: message)
        }
    }

    /// The `error` string of `{"success":false,"error":"…"}`, if the body is that.
    static func serverMessage(_ body: Data) -> String? {
        struct Failure: Decodable { var error: String }
        guard let failure = try? JSONDecoder().decode(Failure.self, from: body), !failure.error.isEmpty else { return nil }
        return failure.error
    }
}

extension String {
    /// "not found" → "Not found" (Foundation's status texts are lowercase).
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
