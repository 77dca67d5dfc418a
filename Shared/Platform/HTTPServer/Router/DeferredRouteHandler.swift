/// A handler that starts its work on the libmicrohttpd thread that read the
/// request and answers later, from whichever thread the work finishes on,
/// through a ``ResponseCompletion``.
///
/// For work that ends in a callback rather than an `await` (a Kafka delivery
/// report on the producer's poll thread): an ordinary ``RouteHandler``
/// costs a Swift task, a wake-up of the cooperative pool for the task, and
/// another when the callback resumes its continuation, before the task
/// resumes the connection. A deferred handler costs none of those: the
/// server suspends the connection, calls the handler on its own thread, and
/// the completion resumes the connection directly.
///
/// Rules, as for an ``ImmediateRouteHandler``: the handler must never block,
/// sleep or wait for a lock held across I/O (while it runs, the thread serves
/// no other connection). It calls the completion exactly once, itself or
/// through whoever it hands it to, possibly before it returns. Throwing an
/// ``HTTPError`` answers with that error (the completion must not have been
/// called then; if it was, the first answer stands). The server's handler
/// deadline (504) and shutdown (503) apply as to any handler: the first of
/// completion, deadline and shutdown answers. A completion released without
/// being called answers 500 (see ``ResponseCompletion``).
///
/// Registered under a name of its own (`registrar.deferred(.post, path) { request, context, completion in ... }`).
/// Behind middleware (the router's or its group's) it is run as an async
/// handler that awaits the completion, with the same result, so adding
/// middleware never skips it.
public typealias DeferredRouteHandler = @Sendable (HTTPRequest, RequestContext, ResponseCompletion) throws(HTTPError) -> Void

extension RouteRegistrar {
    /// The default for registrars that only wrap another one (a decorator
    /// such as checkout's `DatabaseUnavailable`): an ordinary async handler
    /// with the same result. ``Router`` and ``RouterGroup`` register it as
    /// deferred.
    @discardableResult
    public func deferred(_ method: HTTPMethod, _ path: String, _ handler: @escaping DeferredRouteHandler) -> Self {
        on(path, method: method, use: awaitingCompletion(handler))
    }
}

/// `handler` as an ordinary async handler: it runs in the calling task and
/// the task waits for its completion; an error thrown by the handler, or
/// passed to ``ResponseCompletion/fail(_:)``, is thrown from here.
func awaitingCompletion(_ handler: @escaping DeferredRouteHandler) -> RouteHandler {
    { request, context in
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>) in
            let completion = ResponseCompletion(logger: context.logger, route: context.route) { continuation.resume(returning: $0) }
            do throws(HTTPError) {
                try handler(request, context, completion)
            } catch {
                completion.fail(error)
            }
        }
        return try result.get()
    }
}
