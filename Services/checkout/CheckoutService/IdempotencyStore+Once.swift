import HTTPServer

extension IdempotencyStore {
    /// Runs `body` at most once for the user's `key` and request: a repeat
    /// with the same request gets the stored answer (`replayed`), one with
    /// another request or while the first still runs is refused. A `body`
    /// that throws releases the key, so the client may retry with it.
    /// - Parameter id: this attempt's own id (the checkout or command id), to release only its own claim.
    /// - Throws: ``HTTPError`` 422 `idempotency_key_reused`, 409 `idempotency_in_progress`; what `body` throws.
    func once(
        user: String, key: String, requestHash: String, id: String, _ body: () async throws -> [UInt8]
    ) async throws -> (body: [UInt8], replayed: Bool) {
        switch try await begin(user: user, key: key, requestHash: requestHash, checkoutID: id) {
        case .replay(let stored):
            return (Array(stored.utf8), true)
        case .mismatch:
            throw Self.reusedKey
        case .inProgress:
            throw Self.stillRunning
        case .acquired:
            do {
                let answer = try await body()
                try await complete(user: user, key: key, response: String(decoding: answer, as: UTF8.self))
                return (answer, false)
            } catch {
                await release(user: user, key: key, checkoutID: id)
                throw error
            }
        }
    }
}
