internal import CCurl
import Foundation
import Synchronization

/// Runs every transfer of one ``HTTPClient`` on a single dedicated thread that
/// drives a libcurl multi handle.
///
/// Why this shape: the multi handle owns the connection cache, so consecutive
/// and concurrent requests to the same host reuse keep-alive connections (and
/// HTTP/2 streams) without a pool of our own; one thread serves any number of
/// concurrent requests; and libcurl's blocking work (poll, DNS, TLS) never runs
/// on Swift's cooperative pool. Tasks hand requests over through a
/// mutex-guarded queue and `curl_multi_wakeup`, the one multi-handle call
/// libcurl documents as safe from other threads. Everything else (the multi
/// handle, easy handles, their buffers) is touched by the engine thread alone.
final class CurlEngine: @unchecked Sendable {
    // @unchecked: `state` is guarded by its Mutex; `multi` is used only by the
    // engine thread, except `curl_multi_wakeup`, which libcurl documents as
    // thread-safe; `configuration` is immutable.

    private enum Phase {
        /// An id handed out, not yet submitted.
        case reserved
        /// Cancelled before it was submitted: fail it on submission.
        case cancelledEarly
        /// Waiting in `queue` for the engine thread.
        case queued
        /// Owned by the engine thread.
        case active
    }

    private struct Job {
        let id: UInt64
        let request: HTTPClientRequest
        let continuation: CheckedContinuation<HTTPClientResponse, any Error>
    }

    private struct State {
        var nextID: UInt64 = 1
        var phases: [UInt64: Phase] = [:]
        var queue: [Job] = []
        var cancels: [UInt64] = []
        var stopping = false
    }

    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    private let state = Mutex(State())
    private let multi: UnsafeMutableRawPointer
    private let configuration: HTTPClientConfiguration

    init(configuration: HTTPClientConfiguration) {
        precondition(Self.globalInit == CURLE_OK, "curl_global_init failed")
        guard let multi = curl_multi_init() else { fatalError("curl_multi_init failed (out of memory)") }
        self.multi = multi
        self.configuration = configuration
        _ = sf_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, configuration.maxConnectionsPerHost))
        _ = sf_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(1, configuration.maxIdleConnections))
        let thread = Thread { [self] in run() }
        thread.name = "storefront.httpclient.curl"
        thread.start()
    }

    deinit {
        // Reached only after the engine thread returned (it holds a strong reference).
        curl_multi_cleanup(multi)
    }

    // MARK: - Called from any task

    /// Sends one attempt of `request` and waits for its response.
    func perform(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        let id = state.withLock { state -> UInt64 in
            let id = state.nextID
            state.nextID += 1
            state.phases[id] = .reserved
            return id
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                submit(Job(id: id, request: request, continuation: continuation))
            }
        } onCancel: {
            cancel(id)
        }
    }

    /// Stops the engine thread; requests still running fail with `.shutdown`.
    func shutdown() {
        let wake = state.withLock { state -> Bool in
            defer { state.stopping = true }
            return !state.stopping
        }
        if wake { curl_multi_wakeup(multi) }
    }

    private func submit(_ job: Job) {
        enum Decision { case queued, cancelled, stopped }
        let decision = state.withLock { state -> Decision in
            if state.stopping {
                state.phases[job.id] = nil
                return .stopped
            }
            if state.phases[job.id] == .cancelledEarly {
                state.phases[job.id] = nil
                return .cancelled
            }
            state.phases[job.id] = .queued
            state.queue.append(job)
            return .queued
        }
        switch decision {
        case .queued: curl_multi_wakeup(multi)
        case .cancelled: job.continuation.resume(throwing: CancellationError())
        case .stopped: job.continuation.resume(throwing: HTTPClientError.shutdown)
        }
    }

    private func cancel(_ id: UInt64) {
        let queued = state.withLock { state -> Job? in
            switch state.phases[id] {
            case .reserved:
                state.phases[id] = .cancelledEarly
            case .queued:
                state.phases[id] = nil
                if let index = state.queue.firstIndex(where: { $0.id == id }) {
                    return state.queue.remove(at: index)
                }
            case .active:
                state.cancels.append(id)
            case .cancelledEarly, nil:
                break
            }
            return nil
        }
        if let queued {
            queued.continuation.resume(throwing: CancellationError())
        } else {
            curl_multi_wakeup(multi)
        }
    }

    // MARK: - Engine thread

    private func run() {
        var transfers: [UInt64: CurlTransfer] = [:]
        while true {
            let (jobs, cancels, stopping) = state.withLock { state in
                defer {
                    state.queue.removeAll()
                    state.cancels.removeAll()
                }
                for job in state.queue { state.phases[job.id] = .active }
                return (state.queue, state.cancels, state.stopping)
            }
            for job in jobs {
                start(job, into: &transfers)
            }
            for id in cancels {
                if let transfer = transfers.removeValue(forKey: id) {
                    curl_multi_remove_handle(multi, transfer.easy)
                    finish(transfer, with: .failure(CancellationError()))
                }
            }
            if stopping {
                for transfer in transfers.values {
                    curl_multi_remove_handle(multi, transfer.easy)
                    finish(transfer, with: .failure(HTTPClientError.shutdown))
                }
                return
            }

            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            var remaining: Int32 = 0
            while let message = curl_multi_info_read(multi, &remaining) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                let code = sf_curl_msg_result(message)
                var context: UnsafeMutablePointer<CChar>?
                _ = sf_curl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &context)
                curl_multi_remove_handle(multi, easy)
                guard let context else { continue }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(UnsafeRawPointer(context)).takeUnretainedValue()
                transfers[transfer.id] = nil
                finish(transfer, with: transfer.outcome(code).mapError { $0 })
            }
            // Sleeps until a socket is ready, a libcurl timer is due, or
            // `curl_multi_wakeup` is called; the 1 s cap is only a safety net.
            curl_multi_poll(multi, nil, 0, 1000, nil)
        }
    }

    private func start(_ job: Job, into transfers: inout [UInt64: CurlTransfer]) {
        do {
            let transfer = try CurlTransfer(
                id: job.id, request: job.request, configuration: configuration, continuation: job.continuation)
            let code = curl_multi_add_handle(multi, transfer.easy)
            guard code == CURLM_OK else {
                let message = String(cString: curl_multi_strerror(code))
                finish(transfer, with: .failure(HTTPClientError.transport(code: Int(code.rawValue), message: message)))
                return
            }
            transfers[job.id] = transfer
        } catch {
            state.withLock { $0.phases[job.id] = nil }
            job.continuation.resume(throwing: error)
        }
    }

    private func finish(_ transfer: CurlTransfer, with result: Result<HTTPClientResponse, any Error>) {
        state.withLock { $0.phases[transfer.id] = nil }
        transfer.continuation.resume(with: result)
    }
}
