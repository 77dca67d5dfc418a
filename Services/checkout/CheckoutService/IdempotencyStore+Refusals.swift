import HTTPServer

extension IdempotencyStore {
    /// The answer to a key used before with another request body (create-checkout and refunds alike).
    static var reusedKey: HTTPError {
        HTTPError(.unprocessableContent, "Idempotency-Key was already used with a different request body", code: "idempotency_key_reused")
    }

    /// The answer to a key whose first request is still running after the wait.
    static var stillRunning: HTTPError {
        HTTPError(
            .conflict, "A request with this Idempotency-Key is still in progress", code: "idempotency_in_progress", headers: ["Retry-After": "1"])
    }
}
