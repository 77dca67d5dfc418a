internal import CMicroHTTPD
import Foundation
import Synchronization
import Telemetry

/// An HTTP/1.1 server on GNU libmicrohttpd that runs a ``RouterResponder``.
///
/// libmicrohttpd's threads (an epoll loop each) parse requests; every request is
/// handed to a Swift task while its connection is suspended, so handlers may
/// await freely without holding an HTTP thread. An immediate route
/// (``ImmediateRouteHandler``: answered from memory, never waiting) is run on
/// the HTTP thread itself instead; a deferred route (``DeferredRouteHandler``)
/// is started there, its connection suspended, and answered by its
/// completion from whichever thread its work ends on, with no task at all. Limits come from ``HTTPServerConfiguration``.
///
/// Oversized header blocks are refused by libmicrohttpd itself when they do not
/// fit the connection's memory pool (``HTTPServerConfiguration/connectionMemoryLimit``):
/// 0.9.75 answers `431 Request Header Fields Too Large` with a short HTML body and
/// closes the connection; the handler never runs, so such requests are not in the
/// access log or metrics. Malformed request lines are likewise answered by
/// libmicrohttpd with `400 Bad Request` and HTML. Those bodies are compiled into
/// the library and cannot be replaced, so the gateway (`deploy/nginx`) refuses such
/// requests first, in the API's JSON error shape, and the default pool is larger
/// than any header block the gateway forwards (`make fuzz`'s raw probes check both).
public final class HTTPServer: Sendable {
    /// The daemon pointer. `@unchecked Sendable`: libmicrohttpd's daemon calls used
    /// here (info, quiesce, stop) are made once each, in order, by this class.
    struct Daemon: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    enum Lifecycle {
        case idle
        case running(Daemon, port: UInt16, sweeper: Task<Void, Never>)
        case stopping
        case stopped
    }

    private let core: ServerCore
    private let lifecycle = Mutex(Lifecycle.idle)
    private let stopWaiters = Mutex<[CheckedContinuation<Void, Never>]>([])

    /// - Parameters:
    ///   - responder: the frozen router (``Router/buildResponder()``).
    ///   - configuration: address, port and limits.
    ///   - logger: base logger; each request gets a copy carrying its request id.
    ///   - metrics: where `http_requests_total`, `http_request_duration_seconds` and
    ///     `http_requests_in_flight` go; `nil` to skip metrics.
    public init(
        responder: RouterResponder, configuration: HTTPServerConfiguration = HTTPServerConfiguration(),
        logger: Logger, metrics: MetricsRegistry? = nil
    ) {
        core = ServerCore(responder: responder, configuration: configuration, logger: logger, metrics: metrics)
    }

    /// The port the server listens on, or `nil` when it is not running.
    public var port: UInt16? {
        lifecycle.withLock { state in
            if case .running(_, let port, _) = state { return port }
            return nil
        }
    }

    /// Binds and starts serving; returns the real port (useful with port 0).
    /// - Throws: ``HTTPServerError`` for a bad configuration, a second start, or when
    ///   libmicrohttpd cannot bind or start.
    @discardableResult
    public func start() throws(HTTPServerError) -> UInt16 {
        let configuration = core.configuration
        try configuration.validate()
        return try lifecycle.withLock { state throws(HTTPServerError) -> UInt16 in
            guard case .idle = state else { throw HTTPServerError.alreadyStarted }
            var options = storefront_mhd_options(
                thread_pool_size: UInt32(configuration.threadPoolSize),
                connection_limit: UInt32(configuration.maxConnections),
                connection_timeout_seconds: UInt32(configuration.connectionTimeoutSeconds),
                per_ip_connection_limit: UInt32(configuration.maxConnectionsPerIP),
                connection_memory_limit: configuration.connectionMemoryLimit,
                connection_memory_increment: min(1024, configuration.connectionMemoryLimit / 8),
                listen_backlog: UInt32(configuration.listenBacklog))
            let flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
            // Retained for as long as the daemon may call back; released after MHD_stop_daemon.
            let box = Unmanaged.passRetained(core).toOpaque()
            let pointer = storefront_mhd_start(
                flags, configuration.bindAddress, configuration.port, &options,
                { cls, connection, url, method, _, uploadData, uploadSize, context in
                    guard let cls, let connection, let uploadSize, let context else { return .NO }
                    return Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
                        .access(
                            connection: connection, url: url, method: method, uploadData: uploadData,
                            uploadSize: uploadSize, context: context)
                }, box,
                { cls, _, context, _ in
                    guard let cls else { return }
                    Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().requestCompleted(context)
                }, box,
                { cls, uri, connection in
                    guard let cls, let uri, let connection else { return nil }
                    return Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().requestStarted(connection: connection, uri: uri)
                }, box)
            guard let pointer else {
                Unmanaged<ServerCore>.fromOpaque(box).release()
                throw HTTPServerError.startFailed(address: configuration.bindAddress, port: configuration.port)
            }
            let port = storefront_mhd_bind_port(pointer)
            let sweeper = Self.startSweeper(core)
            state = .running(Daemon(pointer: pointer), port: port, sweeper: sweeper)
            return port
        }
    }

    /// A task that enforces handler deadlines a few times per timeout period.
    private static func startSweeper(_ core: ServerCore) -> Task<Void, Never> {
        let timeout = core.configuration.handlerTimeout
        let tick = max(Duration.milliseconds(10), min(Duration.milliseconds(250), timeout / 5))
        return Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: tick)
                core.expireOverdue()
            }
        }
    }

    /// Stops gracefully: refuses new connections at once, lets in-flight requests finish
    /// within ``HTTPServerConfiguration/shutdownGracePeriod``, answers the rest with 503,
    /// then stops libmicrohttpd. Safe to call more than once; later calls wait for the first.
    public func shutdown() async {
        let taken = lifecycle.withLock { state -> (Daemon, Task<Void, Never>)? in
            guard case .running(let daemon, _, let sweeper) = state else { return nil }
            state = .stopping
            return (daemon, sweeper)
        }
        guard let (daemon, sweeper) = taken else {
            await waitUntilStopped()
            return
        }
        core.draining.store(true, ordering: .relaxed)
        // Closing the listening socket right away makes new connects fail fast
        // instead of waiting in a backlog nobody accepts from.
        _ = storefront_mhd_quiesce(daemon.pointer)
        let deadline = ContinuousClock.now + core.configuration.shutdownGracePeriod
        while core.activeRequests.load(ordering: .relaxed) > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        // From here on no request is suspended any more (see ServerCore.refusing).
        core.refusing.store(true, ordering: .releasing)
        let leftover = core.suspended.count
        if leftover > 0 {
            core.logger.warning(
                "shutdown grace period over; answering in-flight requests with 503",
                metadata: ["http.in_flight": String(leftover)])
        }
        // libmicrohttpd aborts the process when stopped with a suspended connection:
        // wait (briefly) until every request has been answered, answering again any
        // that was dispatched just before `refusing` was seen.
        let hardDeadline = ContinuousClock.now + .seconds(2)
        repeat {
            core.abandonSuspended()
            guard core.suspended.count > 0 || core.activeRequests.load(ordering: .relaxed) > 0 else { break }
            try? await Task.sleep(for: .milliseconds(5))
        } while ContinuousClock.now < hardDeadline
        core.abandonSuspended()
        sweeper.cancel()
        // MHD_stop_daemon joins libmicrohttpd's threads: keep it off the cooperative pool.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                MHD_stop_daemon(daemon.pointer)
                continuation.resume()
            }
        }
        Unmanaged.passUnretained(core).release()
        lifecycle.withLock { $0 = .stopped }
        for waiter in stopWaiters.withLock({ waiters in
            defer { waiters.removeAll() }; return waiters
        }) {
            waiter.resume()
        }
    }

    /// Whether ``start()`` has not been called yet.
    var isIdle: Bool {
        if case .idle = lifecycle.withLock({ $0 }) { return true }
        return false
    }

    /// Returns once a shutdown has finished (at once if it already has).
    func waitUntilStopped() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let stopped = lifecycle.withLock { state -> Bool in
                if case .stopped = state { return true }
                stopWaiters.withLock { $0.append(continuation) }
                return false
            }
            if stopped { continuation.resume() }
        }
    }

    /// Request states alive in this process; tests use it to prove none leak.
    var liveRequestStates: Int { core.liveStates.value.load(ordering: .relaxed) }

    /// Requests currently between their first handler call and completion.
    var activeRequests: Int { core.activeRequests.load(ordering: .relaxed) }
}
