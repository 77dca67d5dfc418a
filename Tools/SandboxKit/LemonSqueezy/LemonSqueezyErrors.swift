/// Lemon Squeezy error documents: a JSON:API `errors` array of `{detail, status, title}`.
enum LemonSqueezyErrors {
    static let contentType = "application/vnd.api+json"

    static func title(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 422: "Unprocessable Entity"
        case 429: "Too Many Requests"
        default: "Error"
        }
    }

    static func response(_ status: Int, _ detail: String, pointer: String? = nil) -> SandboxResponse {
        var error: JSONValue = ["detail": .string(detail), "status": .string(String(status)), "title": .string(title(status))]
        if let pointer { error = error.setting("source", ["pointer": .string(pointer)]) }
        var body: JSONValue = ["jsonapi": ["version": "1.0"], "errors": [error]]
        // Validation errors observed in the wild also carry a top-level status and message.
        if status == 422 { body = ["status": 422, "message": "Unprocessable Entity", "errors": [error]] }
        return .json(status, body, contentType: contentType, dialect: .php)
    }

    static func unauthorized() -> SandboxResponse { response(401, "Unauthenticated.") }

    /// 429 with `Retry-After` (the references found no documented header; Laravel,
    /// which Lemon Squeezy runs on, sends it) and the documented `X-Ratelimit-*` headers.
    static func rateLimited(retryAfter: Int, limit: Int?) -> SandboxResponse {
        var response = response(429, "Too Many Attempts.")
        response.headers.add("Retry-After", String(retryAfter))
        if let limit { response.headers.add("X-Ratelimit-Limit", String(limit)) }
        response.headers.add("X-Ratelimit-Remaining", "0")
        return response
    }
    static func notFound(_ detail: String = "The requested resource could not be found.") -> SandboxResponse { response(404, detail) }

    static func from(_ error: SandboxError) -> SandboxResponse {
        switch error.kind {
        case .notFound: notFound(error.message)
        case .invalid, .unsupported: response(422, error.message, pointer: error.pointer)
        case .conflict: response(409, error.message)
        }
    }
}
