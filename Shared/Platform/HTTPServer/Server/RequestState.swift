internal import CMicroHTTPD
import Synchronization

/// Everything the server keeps about one request between libmicrohttpd's calls
/// of the access handler; it lives in `*con_cls` as an `Unmanaged` reference.
///
/// `@unchecked Sendable`: the stored `var`s are touched only by the
/// libmicrohttpd thread that owns the connection (it calls the handler for one
/// connection sequentially). The handler task reads the request built before
/// it started and publishes its result through the `finish` mutex; the
/// suspend/resume pair orders those accesses.
final class RequestState: @unchecked Sendable {
    enum Phase {
        /// Headers seen, body (if any) arriving.
        case receiving
        /// A response was decided before the handler ran (413, 400); sent on the next call.
        case rejected(HTTPResponse)
        /// The connection is suspended while the handler task runs.
        case suspended
        /// The response is queued; nothing is left to do.
        case answered
    }

    /// The result slot: the first of handler, timeout sweeper or shutdown to fill it wins.
    struct Finish {
        var response: HTTPResponse?
        var task: Task<Void, Never>?
    }

    let connection: OpaquePointer
    /// Request target exactly as sent (`/path?query`), from the URI log callback.
    let rawTarget: String
    let started: ContinuousClock.Instant

    var headersSeen = false
    var countedActive = false
    var phase = Phase.receiving
    var method = HTTPMethod.get
    var headers = HTTPHeaders()
    var body: [UInt8] = []
    var remoteAddress = ""
    var requestID = ""
    var route = RouterResponder.unmatchedRoute
    var discardedBytes = 0

    let finish = Mutex(Finish())

    /// The owning server's count of live states (tests use it to prove none leak).
    private let live: LiveCount

    init(connection: OpaquePointer, rawTarget: String, live: LiveCount) {
        self.connection = connection
        self.rawTarget = rawTarget
        self.live = live
        started = .now
        live.value.add(1, ordering: .relaxed)
    }

    deinit { live.value.subtract(1, ordering: .relaxed) }

    /// Stores `response` if no other party answered yet, and resumes the connection so
    /// libmicrohttpd calls the handler again to queue it. Returns whether this call won.
    @discardableResult
    func complete(with response: HTTPResponse) -> Bool {
        let won = finish.withLock { finish -> Bool in
            guard finish.response == nil else { return false }
            finish.response = response
            return true
        }
        if won { MHD_resume_connection(connection) }
        return won
    }

    /// The response stored by ``complete(with:)``.
    var finishedResponse: HTTPResponse? { finish.withLock { $0.response } }
}

/// A shared counter of live ``RequestState``s.
final class LiveCount: Sendable {
    let value = Atomic<Int>(0)
}
