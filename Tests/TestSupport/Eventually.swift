import Testing

/// Polls `condition` until it holds or `timeout` passes, and says whether it
/// held. Generous by default: every suite runs at once on two cores, and in
/// CI a condition worth 0.15 s alone has taken over 40 s while the suites
/// start; this bounds a wait, it does not time anything.
public func eventually(
    timeout: Duration = .seconds(60), every interval: Duration = .milliseconds(10),
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}

/// ``eventually(timeout:every:_:)`` that ends the test, naming `what`, when the condition never held.
public func waitUntil(
    _ what: String = "the condition", timeout: Duration = .seconds(60),
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: () async throws -> Bool
) async throws {
    let held = try await eventually(timeout: timeout, condition)
    try #require(held, "timed out after \(timeout) waiting until \(what)", sourceLocation: sourceLocation)
}
