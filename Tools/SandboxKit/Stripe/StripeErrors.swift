import Foundation

/// Stripe's error answers: `{"error":{"type","code","message","param","doc_url"}}`
/// with the HTTP status Stripe documents for each kind.
enum StripeErrors {
    static func response(_ status: Int, type: String, code: String? = nil, message: String, param: String? = nil) -> SandboxResponse {
        var error: [JSONField] = [JSONField(key: "type", value: .string(type))]
        if let code {
            error.append(JSONField(key: "code", value: .string(code)))
            error.append(
                JSONField(key: "doc_url", value: .string("https://stripe.com/docs/error-codes/\(code.replacingOccurrences(of: "_", with: "-"))")))
        }
        error.append(JSONField(key: "message", value: .string(message)))
        if let param { error.append(JSONField(key: "param", value: .string(param))) }
        return .json(status, ["error": .object(error)])
    }

    /// 401 for a missing or wrong key; the key is shown masked, as Stripe does.
    static func invalidKey(_ given: String?) -> SandboxResponse {
        guard let given, !given.isEmpty else {
            return response(
                401, type: "invalid_request_error",
                message: "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth.")
        }
        return response(401, type: "invalid_request_error", message: "Invalid API Key provided: \(given.prefix(8))****\(given.suffix(4))")
    }

    static func rateLimited(retryAfter: Int) -> SandboxResponse {
        var r = response(
            429, type: "invalid_request_error", code: "rate_limit",
            message: "Request rate limit exceeded. You can learn more about rate limits here https://stripe.com/docs/rate-limits.")
        r.headers.add("Retry-After", String(retryAfter))
        return r
    }

    static func missing(_ kind: String, _ id: String, param: String = "id") -> SandboxResponse {
        response(404, type: "invalid_request_error", code: "resource_missing", message: "No such \(kind): '\(id.prefix(80))'", param: param)
    }

    static func missingParameter(_ param: String) -> SandboxResponse {
        response(400, type: "invalid_request_error", code: "parameter_missing", message: "Missing required param: \(param).", param: param)
    }

    static func invalid(_ message: String, param: String? = nil) -> SandboxResponse {
        response(400, type: "invalid_request_error", message: message, param: param)
    }

    static func idempotencyMismatch(_ key: String) -> SandboxResponse {
        response(
            400, type: "idempotency_error",
            message: "Keys for idempotent requests can only be used with the same parameters they were first used with. "
                + "Try using a key other than '\(key.prefix(80))' if you meant to execute a different request.")
    }

    static func from(_ error: SandboxError) -> SandboxResponse {
        switch error.kind {
        case .notFound: response(404, type: "invalid_request_error", code: "resource_missing", message: error.message)
        case .invalid, .conflict: response(400, type: "invalid_request_error", message: error.message, param: error.pointer)
        case .unsupported: response(400, type: "invalid_request_error", message: error.message)
        }
    }
}
