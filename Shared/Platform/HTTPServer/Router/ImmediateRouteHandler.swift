/// A handler that answers from what the process already holds (an in-memory
/// snapshot, a precomputed body) without waiting for anything.
///
/// The server runs it on the libmicrohttpd thread that read the request and
/// queues its answer at once. An ordinary ``RouteHandler`` costs a suspended
/// connection, a Swift task, a wake-up of the cooperative pool and a resume
/// that wakes the HTTP thread again: for `GET /api/products` those hops were
/// most of the request's CPU (about half of it in the kernel, switching
/// threads). So an immediate handler must never block, sleep or wait for a
/// lock held across I/O: while it runs, the thread serves no other connection.
/// It may only fail with an ``HTTPError``. Registered under a name of its
/// own (`registrar.immediate(.get, "/api/products") { ... }`), so a
/// synchronous closure given to `get` or `on` stays an ordinary handler.
///
/// Middleware runs around every async handler; an immediate endpoint behind
/// middleware (the router's or its group's) is run as an async handler, with
/// the same result, so adding middleware never skips it.
public typealias ImmediateRouteHandler = @Sendable (HTTPRequest, RequestContext) throws(HTTPError) -> HTTPResponse

extension RouteRegistrar {
    /// The default for registrars that only wrap another one (a decorator
    /// such as checkout's `DatabaseUnavailable`): an ordinary async handler
    /// with the same result. ``Router`` and ``RouterGroup`` register it as
    /// immediate.
    @discardableResult
    public func immediate(_ method: HTTPMethod, _ path: String, _ handler: @escaping ImmediateRouteHandler) -> Self {
        on(path, method: method) { request, context in try handler(request, context) }
    }
}
