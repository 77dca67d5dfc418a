/// The idempotency records a refund request is kept under: those of
/// ``IdempotencyStore`` (the create-checkout's table), keyed by the API key
/// rather than an app user, so two keys never share a record. A protocol so
/// the refund's rules can be tested without a database.
protocol RefundIdempotency: Sendable {
    /// See ``IdempotencyStore/begin(user:key:requestHash:checkoutID:)``; `owner` is the record's id for ``release``.
    func begin(user: String, key: String, requestHash: String, checkoutID owner: String) async throws -> IdempotencyStore.Claim
    func complete(user: String, key: String, response: String) async throws
    func release(user: String, key: String, checkoutID owner: String) async
}

extension IdempotencyStore: RefundIdempotency {}
