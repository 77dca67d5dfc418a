/// Paystack error bodies: `{"status":false,"message":…}`, newer ones with `meta.nextStep`, `type`, `code`.
enum PaystackErrors {
    static func response(_ status: Int, _ message: String, nextStep: String? = nil, type: String? = nil, code: String? = nil) -> SandboxResponse {
        var body: JSONValue = ["status": false, "message": .string(message)]
        if let nextStep { body = body.setting("meta", ["nextStep": .string(nextStep)]) }
        if let type { body = body.setting("type", .string(type)) }
        if let code { body = body.setting("code", .string(code)) }
        return .json(status, body)
    }

    static func invalidKey() -> SandboxResponse { response(401, "Invalid key") }

    static func rateLimited(retryAfter: Int) -> SandboxResponse {
        var r = response(
            429, "Rate limit exceeded!", nextStep: "Wait a few minutes and try the API call again", type: "api_error", code: "rate_limited")
        r.headers.add("Retry-After", String(retryAfter))
        return r
    }

    static func duplicateReference() -> SandboxResponse {
        .json(
            400,
            [
                "status": false, "message": "Duplicate Transaction Reference",
                "meta": ["nextStep": "Try and create the Transaction or Charge with a new reference"],
                "type": "validation_error", "code": "duplicate_reference", "errorCodeMappingNotFound": false,
            ])
    }

    static func from(_ error: SandboxError) -> SandboxResponse {
        switch error.kind {
        case .notFound: response(404, error.message)
        case .invalid, .conflict: response(400, error.message)
        case .unsupported: response(422, error.message)
        }
    }
}
