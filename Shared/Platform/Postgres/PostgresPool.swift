import Synchronization

/// A bounded set of connections handed out one owner at a time.
///
/// When every connection is in use, callers queue (first come, first served)
/// until one is returned or ``PostgresPoolConfiguration/acquireTimeout``
/// passes. Before an idle connection is handed out it is checked; a broken one
/// (for example after the server restarted) is discarded and replaced, as is a
/// connection that broke while in use.
public final class PostgresPool: Sendable {
    /// Where connections go.
    public let configuration: PostgresConfiguration
    /// Sizing and timing.
    public let options: PostgresPoolConfiguration

    private struct Idle {
        let connection: PostgresConnection
        let since: ContinuousClock.Instant
    }

    /// What a waiter is given: a connection, or the right to open one.
    private enum Grant: Sendable {
        case connection(PostgresConnection)
        case mayOpen
    }

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Grant, any Error>
        let timer: Task<Void, Never>
    }

    private struct State {
        var idle: [Idle] = []
        /// Connections open or being opened, idle or checked out.
        var open = 0
        var waiters: [Waiter] = []
        var nextWaiterID: UInt64 = 0
        var closed = false
    }

    private let state = Mutex(State())

    /// Creates a pool; connections open lazily on first use.
    /// - Parameters:
    ///   - configuration: where and how to connect.
    ///   - options: sizing and timing.
    public init(configuration: PostgresConfiguration, options: PostgresPoolConfiguration = .init()) {
        self.configuration = configuration
        self.options = options
    }

    /// Current counters.
    public var statistics: PostgresPoolStatistics {
        state.withLock { PostgresPoolStatistics(open: $0.open, idle: $0.idle.count, waiting: $0.waiters.count) }
    }

    /// Lends a connection to `body`, its only owner until `body` returns.
    ///
    /// An open transaction left behind by `body` is rolled back; a connection
    /// that broke is discarded.
    /// - Parameter body: work to do with the connection.
    /// - Returns: what `body` returns.
    /// - Throws: `.poolTimeout`, `.poolClosed`, `.connectionFailed`, or the body's error.
    public func withConnection<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let connection = try await acquire()
        let result: Result
        do {
            result = try await body(connection)
        } catch {
            await connection.resetAfterUse()
            release(connection)
            throw error
        }
        await connection.resetAfterUse()
        release(connection)
        return result
    }

    /// Shuts the pool: waiting callers get `.poolClosed`, idle connections
    /// close, and checked-out ones close when returned.
    public func close() async {
        let (idle, waiters) = state.withLock { state in
            state.closed = true
            let taken = (state.idle, state.waiters)
            state.open -= state.idle.count
            state.idle = []
            state.waiters = []
            return taken
        }
        for waiter in waiters {
            waiter.timer.cancel()
            waiter.continuation.resume(throwing: PostgresError(.poolClosed, message: "pool is closed"))
        }
        for entry in idle { await entry.connection.close() }
    }

    // MARK: - Acquire and release

    private enum Decision {
        case closed
        case reuse(Idle)
        case open
        case wait
    }

    private func acquire() async throws -> PostgresConnection {
        while true {
            try Task.checkCancellation()
            let decision: Decision = state.withLock { state in
                if state.closed { return .closed }
                if let idle = state.idle.popLast() { return .reuse(idle) }
                if state.open < options.maximumConnections {
                    state.open += 1
                    return .open
                }
                return .wait
            }
            switch decision {
            case .closed:
                throw PostgresError(.poolClosed, message: "pool is closed")
            case .reuse(let idle):
                let roundTrip = ContinuousClock.now - idle.since > options.healthCheckAfterIdle
                if await idle.connection.checkHealth(roundTrip: roundTrip) { return idle.connection }
                idle.connection.markBroken()
                releaseSlot()
            case .open:
                return try await openConnection()
            case .wait:
                switch try await waitForGrant() {
                case .connection(let connection): return connection
                case .mayOpen: return try await openConnection()
                }
            }
        }
    }

    /// Opens a connection in a slot already counted in `open`.
    private func openConnection() async throws -> PostgresConnection {
        do {
            return try await PostgresConnection.connect(configuration)
        } catch {
            releaseSlot()
            throw error
        }
    }

    /// Queues the caller until a connection or a free slot is handed to it.
    private func waitForGrant() async throws -> Grant {
        let id = state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        let timeout = options.acquireTimeout
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Grant, any Error>) in
                let timer = Task { [weak self] in
                    try? await Task.sleep(for: timeout)
                    guard !Task.isCancelled else { return }
                    self?.failWaiter(id, with: PostgresError(.poolTimeout, message: "no connection free within \(timeout)"))
                }
                // Re-check under the lock: a connection may have come back since we decided to wait.
                let immediate: Result<Grant, any Error>? = state.withLock { state in
                    if state.closed { return .failure(PostgresError(.poolClosed, message: "pool is closed")) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if let idle = state.idle.popLast() { return .success(.connection(idle.connection)) }
                    if state.open < options.maximumConnections {
                        state.open += 1
                        return .success(.mayOpen)
                    }
                    state.waiters.append(Waiter(id: id, continuation: continuation, timer: timer))
                    return nil
                }
                if let immediate {
                    timer.cancel()
                    continuation.resume(with: immediate)
                }
            }
        } onCancel: {
            failWaiter(id, with: CancellationError())
        }
    }

    private func failWaiter(_ id: UInt64, with error: any Error) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        guard let waiter else { return }
        waiter.timer.cancel()
        waiter.continuation.resume(throwing: error)
    }

    /// Returns a connection: to the first waiter, else to the idle list; a
    /// broken one is dropped and its slot passed on.
    private func release(_ connection: PostgresConnection) {
        guard !connection.isClosed else { return releaseSlot() }
        let waiter = state.withLock { state -> Waiter? in
            if state.closed {
                state.open -= 1
                return nil
            }
            if !state.waiters.isEmpty { return state.waiters.removeFirst() }
            state.idle.append(Idle(connection: connection, since: .now))
            return nil
        }
        // When the pool is closed the connection is simply dropped; deinit closes it.
        if let waiter {
            waiter.timer.cancel()
            waiter.continuation.resume(returning: .connection(connection))
        }
    }

    /// Gives up one open slot: to the first waiter (who may open a new
    /// connection), or back to the pool.
    private func releaseSlot() {
        let waiter = state.withLock { state -> Waiter? in
            if !state.closed, !state.waiters.isEmpty { return state.waiters.removeFirst() }
            state.open -= 1
            return nil
        }
        if let waiter {
            waiter.timer.cancel()
            waiter.continuation.resume(returning: .mayOpen)
        }
    }
}
