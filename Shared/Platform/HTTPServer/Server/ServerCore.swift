import Timing
internal import CMicroHTTPD
import Synchronization
import Telemetry

/// The part of the server libmicrohttpd calls into (through an `Unmanaged`
/// pointer); every method here runs on a libmicrohttpd thread unless noted.
final class ServerCore: Sendable {
    let responder: RouterResponder
    let configuration: HTTPServerConfiguration
    let logger: Logger
    let metrics: HTTPMetrics?
    let suspended = SuspendedRequests()
    /// Requests between their first handler call and libmicrohttpd's completion notice.
    let activeRequests = Atomic<Int>(0)
    /// Set when shutdown starts: responses then carry `Connection: close`.
    let draining = Atomic<Bool>(false)
    /// Set when the shutdown grace period is over: a request that completes
    /// its headers on a kept-alive connection after that is answered 503 at
    /// once, never suspended (libmicrohttpd must not be stopped with a
    /// suspended connection, and a handler finishing later would resume a
    /// freed one).
    let refusing = Atomic<Bool>(false)
    let liveStates = LiveCount()

    init(responder: RouterResponder, configuration: HTTPServerConfiguration, logger: Logger, metrics: MetricsRegistry?) {
        self.responder = responder
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics.map(HTTPMetrics.init(registry:))
    }

    // MARK: - Callbacks

    /// URI log callback: the only place libmicrohttpd shows the raw target with its query.
    /// The returned retained state becomes `*con_cls`; ``requestCompleted(_:)`` releases it.
    func requestStarted(connection: OpaquePointer, uri: UnsafePointer<CChar>) -> UnsafeMutableRawPointer {
        Unmanaged.passRetained(RequestState(connection: connection, rawTarget: String(cString: uri), live: liveStates)).toOpaque()
    }

    /// Access handler: called once with the headers, once per body chunk, once with an
    /// empty chunk, and once more after each resume.
    func access(
        connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
        uploadData: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
        context: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        let state: RequestState
        if let raw = context.pointee {
            state = Unmanaged<RequestState>.fromOpaque(raw).takeUnretainedValue()
        } else {
            // Only if the URI log callback did not run; fall back to the decoded path.
            state = RequestState(connection: connection, rawTarget: url.map { String(cString: $0) } ?? "/", live: liveStates)
            context.pointee = Unmanaged.passRetained(state).toOpaque()
        }
        if !state.headersSeen {
            return begin(state, method: method)
        }
        switch state.phase {
        case .receiving:
            if uploadSize.pointee > 0 { return receive(state, data: uploadData, size: uploadSize) }
            return dispatch(state)
        case .rejected(let response):
            if uploadSize.pointee > 0 {
                // libmicrohttpd 0.9.75 refuses MHD_queue_response while a body is still
                // arriving, so the rest is read and dropped; a client that keeps streaming
                // past the allowance gets its connection closed without an answer.
                state.discardedBytes += uploadSize.pointee
                uploadSize.pointee = 0
                return state.discardedBytes > Self.discardAllowance(configuration.maxBodyBytes) ? .NO : .YES
            }
            state.phase = .answered
            return queue(state, response)
        case .suspended:
            // Called again after MHD_resume_connection: the result is ready.
            guard let response = state.finishedResponse else { return .YES }
            state.phase = .answered
            metrics?.handlerFinished()
            return queue(state, response)
        case .answered:
            uploadSize.pointee = 0
            return .YES
        }
    }

    /// Completion notice: the request is over (answered, timed out or connection lost).
    func requestCompleted(_ context: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        guard let context, let raw = context.pointee else { return }
        context.pointee = nil
        let state = Unmanaged<RequestState>.fromOpaque(raw).takeRetainedValue()
        if state.countedActive { activeRequests.subtract(1, ordering: .relaxed) }
        if case .suspended = state.phase {
            // Not expected (a suspended connection is not closed), but never leak the slot.
            suspended.remove(state)
            metrics?.handlerFinished()
        }
    }

    // MARK: - Steps

    private func begin(_ state: RequestState, method: UnsafePointer<CChar>?) -> MHD_Result {
        state.headersSeen = true
        state.countedActive = true
        activeRequests.add(1, ordering: .relaxed)
        state.method = HTTPMethod(rawValue: method.map { String(cString: $0) } ?? "GET")
        let box = Unmanaged.passUnretained(state).toOpaque()
        _ = MHD_get_connection_values(
            state.connection, .HEADER_KIND,
            { cls, _, key, value in
                guard let cls, let key else { return .YES }
                let state = Unmanaged<RequestState>.fromOpaque(cls).takeUnretainedValue()
                state.headers.add(name: String(cString: key), value: value.map { String(cString: $0) } ?? "")
                return .YES
            }, box)
        state.remoteAddress = Self.clientAddress(state.connection)
        if let offered = state.headers[RequestID.headerName], RequestID.isAcceptable(offered) {
            state.requestID = offered
        } else {
            state.requestID = RequestID.generate()
        }
        if let declared = state.headers["Content-Length"].flatMap({ Int($0) }) {
            if declared > configuration.maxBodyBytes {
                // Refuse before reading anything: queuing now makes libmicrohttpd skip
                // the body (and any 100-continue) and close the connection afterwards.
                state.phase = .answered
                reportTooLarge(state)
                return queue(state, Self.tooLarge(configuration.maxBodyBytes))
            }
            state.body.reserveCapacity(declared)
        }
        return .YES
    }

    private func receive(_ state: RequestState, data: UnsafePointer<CChar>?, size: UnsafeMutablePointer<Int>) -> MHD_Result {
        let count = size.pointee
        size.pointee = 0
        guard state.body.count + count <= configuration.maxBodyBytes else {
            // Answered once the upload ends (see `.rejected`); nothing more is kept.
            state.body = []
            state.discardedBytes = count
            state.phase = .rejected(Self.tooLarge(configuration.maxBodyBytes))
            reportTooLarge(state)
            return .YES
        }
        if let data {
            state.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: count))
        }
        return .YES
    }

    private func dispatch(_ state: RequestState) -> MHD_Result {
        let request: HTTPRequest
        do {
            request = try HTTPRequest(
                method: state.method, target: state.rawTarget, headers: state.headers, body: state.body,
                remoteAddress: state.remoteAddress, requestID: state.requestID)
        } catch {
            state.phase = .answered
            return queue(state, error.response)
        }
        state.body = [] // the request owns the bytes now; no second copy stays behind
        let resolution = responder.resolve(method: request.method, path: request.path)
        state.route = resolution.route
        if refusing.load(ordering: .acquiring) {
            state.phase = .answered
            return queue(state, Self.shuttingDown)
        }
        let context = RequestContext(
            parameters: resolution.parameters, route: resolution.route,
            logger: logger.with(Logger.requestIDKey, request.requestID), requestID: request.requestID)
        if let immediate = resolution.immediate {
            // Answered on this thread: no suspension, task or resume (ImmediateRouteHandler).
            state.phase = .answered
            do throws(HTTPError) {
                return queue(state, try immediate(request, context))
            } catch {
                return queue(state, error.response)
            }
        }
        state.phase = .suspended
        metrics?.handlerStarted()
        // Suspend before the handler starts, so its resume can never come first, and
        // before the sweeper or a shutdown can find the request and resume it.
        MHD_suspend_connection(state.connection)
        suspended.insert(state, deadline: .now + configuration.handlerTimeout)
        let suspended = self.suspended
        if let deferred = resolution.deferred {
            // Started on this thread and answered by its completion, from any
            // thread, even before the handler returns (DeferredRouteHandler).
            let completion = ResponseCompletion(logger: context.logger, route: resolution.route) { result in
                suspended.remove(state)
                switch result {
                case .success(let response): state.complete(with: response)
                case .failure(let error): state.complete(with: error.response)
                }
            }
            do throws(HTTPError) {
                try deferred(request, context, completion)
            } catch {
                completion.fail(error)
            }
            return .YES
        }
        let handler = resolution.handler
        let task = Task {
            let response = await RouterResponder.run(handler, request, context)
            suspended.remove(state)
            state.complete(with: response)
        }
        state.finish.withLock { $0.task = task }
        return .YES
    }

    /// Hands `response` to libmicrohttpd (which copies the bytes), then logs and counts it.
    private func queue(_ state: RequestState, _ response: HTTPResponse) -> MHD_Result {
        var response = response
        SecurityHeaders.apply(to: &response, request: state.headers)
        let mhdResponse = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let mhdResponse else { return .NO }
        defer { MHD_destroy_response(mhdResponse) }
        for (name, value) in response.headers {
            _ = MHD_add_response_header(mhdResponse, name, value)
        }
        _ = MHD_add_response_header(mhdResponse, RequestID.headerName, state.requestID)
        if draining.load(ordering: .relaxed) {
            _ = MHD_add_response_header(mhdResponse, "Connection", "close")
        }
        let result = MHD_queue_response(state.connection, UInt32(response.status.code), mhdResponse)
        record(state, status: response.status.code, bytes: response.body.count, extra: response.accessLogMetadata)
        return result
    }

    private func record(_ state: RequestState, status: Int, bytes: Int, extra: [String: String] = [:]) {
        let elapsed = ContinuousClock.now - state.started
        let seconds = elapsed.inSeconds
        metrics?.record(method: state.method, route: state.route, status: status, seconds: seconds)
        if logger.isEnabled(.info) {
            var metadata = extra
            metadata[Logger.requestIDKey] = state.requestID
            metadata["http.method"] = state.method.rawValue
            metadata["http.route"] = state.route
            metadata["http.status"] = String(status)
            metadata["http.duration_ms"] = String(Double(Int(seconds * 1_000_000)) / 1000)
            metadata["http.response_bytes"] = String(bytes)
            logger.info("request", metadata: metadata)
        }
    }

    // MARK: - Helpers

    /// Tells ``HTTPServerConfiguration/bodyTooLargeObserver`` about a 413.
    private func reportTooLarge(_ state: RequestState) {
        guard let observer = configuration.bodyTooLargeObserver else { return }
        observer(String(state.rawTarget.prefix { $0 != "?" }))
    }

    /// Bytes of an over-limit streamed body read and dropped before giving up on the client.
    static func discardAllowance(_ limit: Int) -> Int { max(limit, 1 << 20) }

    static func tooLarge(_ limit: Int) -> HTTPResponse {
        HTTPError(.contentTooLarge, "Request body exceeds \(limit) bytes").response
    }

    private static func clientAddress(_ connection: OpaquePointer) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            guard storefront_mhd_client_address(connection, buffer.baseAddress, buffer.count) == 0 else { return "" }
            return String(cString: buffer.baseAddress!)
        }
    }

    /// Answers requests whose handler ran past its deadline with 504 and cancels their tasks.
    /// Runs on the server's sweeper task, not on a libmicrohttpd thread.
    func expireOverdue() {
        for state in suspended.takeExpired(now: .now) {
            if state.complete(with: HTTPError(.gatewayTimeout, "Request timed out").response) {
                logger.with(Logger.requestIDKey, state.requestID)
                    .warning("handler timed out", metadata: ["http.route": state.route])
                state.finish.withLock { $0.task }?.cancel()
            }
        }
    }

    static let shuttingDown = HTTPError(.serviceUnavailable, "Server is shutting down").response

    /// Answers every suspended request with 503 (end of the shutdown grace period).
    func abandonSuspended() {
        for state in suspended.takeAll() {
            if state.complete(with: Self.shuttingDown) {
                state.finish.withLock { $0.task }?.cancel()
            }
        }
    }
}
